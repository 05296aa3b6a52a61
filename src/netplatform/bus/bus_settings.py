"""The bus settings object: one per environment, created once (deprecated) and replaced by PUT."""

from __future__ import annotations

from ..clock import wire_now
from ..store.db import Database
from .checks import require, require_token
from .repository.bus_settings import bus_settings, save_bus_settings
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
    """Reads and writes the singleton bus settings row (it is also the message-router lock)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self) -> BusSettings:
        with self.db.read() as session:
            return bus_settings(session)

    def create(self, body: BusSettings) -> BusSettings:
        """Initialise once; afterwards the stored object is answered unchanged."""
        _check(body)
        with self.db.write() as session:
            stored = bus_settings(session, for_update=True)
            if stored.version != UNINITIALISED:
                return stored
            created = _stored_from(body, body.version if body.version is not None else FIRST_VERSION)
            save_bus_settings(session, created)
        return created

    def replace(self, body: BusSettings) -> BusSettings:
        """Replace the eight fields; an absent version keeps the stored one (``"1"`` if never set)."""
        _check(body)
        with self.db.write() as session:
            stored = bus_settings(session, for_update=True)
            kept = FIRST_VERSION
            if stored.version is not None and stored.version != UNINITIALISED:
                kept = stored.version
            replaced = _stored_from(body, body.version if body.version is not None else kept)
            save_bus_settings(session, replaced)
        return replaced
