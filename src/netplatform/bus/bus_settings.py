"""The bus settings object: one per environment, created once (deprecated) and replaced by PUT.

A new ``bridgeAdminTopic`` is news for every cluster's router: its clusters and mirror agents are
marked NEW in the same transaction, and provisioned again (docs/bus.md, issue 24, 6)."""

from __future__ import annotations

from ..clock import wire_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .checks import require, require_token
from .outbound.router.provisioning import RouterProvisioner
from .repository.rows import CLUSTERS, MIRROR_MAKERS
from .repository.topology import TopologyRepository
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
        self.unit = UnitOfWork(db, TopologyRepository)
        self.routers = routers

    def get(self) -> BusSettings:
        return self.unit.read(lambda repo: repo.settings.get())

    def create(self, body: BusSettings) -> BusSettings:
        """Initialise once; afterwards the stored object is answered unchanged."""
        _check(body)

        def create(repo: TopologyRepository) -> tuple[BusSettings, bool]:
            repo.lock_topology()
            stored = repo.settings.get()
            if stored.version != UNINITIALISED:
                return stored, False
            created = _stored_from(body, body.version if body.version is not None else FIRST_VERSION)
            repo.settings.save(created)
            return created, _tell_routers(repo, stored, created)

        created, moved = self.unit.write(create, retry=False)
        if moved:
            self.routers.provision_pending()
        return created

    def replace(self, body: BusSettings) -> BusSettings:
        """Replace the eight fields; an absent version keeps the stored one (``"1"`` if never set)."""
        _check(body)

        def replace(repo: TopologyRepository) -> tuple[BusSettings, bool]:
            repo.lock_topology()
            stored = repo.settings.get()
            kept = FIRST_VERSION
            if stored.version is not None and stored.version != UNINITIALISED:
                kept = stored.version
            replaced = _stored_from(body, body.version if body.version is not None else kept)
            repo.settings.save(replaced)
            return replaced, _tell_routers(repo, stored, replaced)

        replaced, moved = self.unit.write(replace, retry=False)
        if moved:
            self.routers.provision_pending()
        return replaced


def _tell_routers(repo: TopologyRepository, before: BusSettings, after: BusSettings) -> bool:
    """A changed bridge-admin topic: every cluster and mirror agent is to be provisioned again."""
    if before.bridgeAdminTopic == after.bridgeAdminTopic:
        return False
    repo.routers.mark_new(CLUSTERS)
    repo.routers.mark_new(MIRROR_MAKERS)
    return True
