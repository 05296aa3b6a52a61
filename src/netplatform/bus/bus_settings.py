"""The bus settings object: one per environment, created once (deprecated) and replaced by PUT.

A new ``bridgeAdminTopic`` is news for every cluster's router: its clusters and mirror agents are
marked NEW in the same transaction, and provisioned again (docs/bus.md, issue 24, 6)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..clock import wire_now
from ..store.db import Database
from .checks import require, require_token
from .outbound.router.provisioning import RouterProvisioner
from .repository import rows
from .repository.bus_settings import bus_settings, save_bus_settings
from .repository.locks import lock_topology
from .repository.router_state import mark_new
from .schemas import BusSettings, Status

UNINITIALISED = "0"
FIRST_VERSION = "1"


def _check(body: BusSettings) -> None:
    require_token(body.busName, "busName")
    for name in ("drProvUrl", "topicNsRoot", "bridgeAdminTopic"):
        require(getattr(body, name), name)


def _stored_from(body: BusSettings, version: str) -> BusSettings:
    fields = body.model_dump(exclude={"lastMod", "status", "version"})
    return BusSettings(**fields, version=version, status=Status.VALID, lastMod=wire_now())


class BusSettingsService:
    """Reads and writes the singleton bus settings row (a write holds the topology lock)."""

    def __init__(self, db: Database, routers: RouterProvisioner) -> None:
        self.db = db
        self.routers = routers

    def get(self) -> BusSettings:
        with self.db.read() as session:
            return bus_settings(session)

    def create(self, body: BusSettings) -> BusSettings:
        """Initialise once; afterwards the stored object is answered unchanged."""
        _check(body)
        with self.db.write() as session:
            lock_topology(session)
            stored = bus_settings(session)
            if stored.version != UNINITIALISED:
                return stored
            created = _stored_from(body, body.version if body.version is not None else FIRST_VERSION)
            save_bus_settings(session, created)
            moved = _tell_routers(session, stored, created)
        if moved:
            self.routers.provision_pending()
        return created

    def replace(self, body: BusSettings) -> BusSettings:
        """Replace the eight fields; an absent version keeps the stored one (``"1"`` if never set)."""
        _check(body)
        with self.db.write() as session:
            lock_topology(session)
            stored = bus_settings(session)
            kept = FIRST_VERSION
            if stored.version is not None and stored.version != UNINITIALISED:
                kept = stored.version
            replaced = _stored_from(body, body.version if body.version is not None else kept)
            save_bus_settings(session, replaced)
            moved = _tell_routers(session, stored, replaced)
        if moved:
            self.routers.provision_pending()
        return replaced


def _tell_routers(session: Session, before: BusSettings, after: BusSettings) -> bool:
    """A changed bridge-admin topic: every cluster and mirror agent is to be provisioned again."""
    if before.bridgeAdminTopic == after.bridgeAdminTopic:
        return False
    mark_new(session, rows.CLUSTERS)
    mark_new(session, rows.MIRROR_MAKERS)
    return True
