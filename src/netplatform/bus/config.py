"""The bus settings object: one per environment, created once (deprecated) and replaced by PUT."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..clock import wire_now
from . import repository as repo
from .checks import require, require_token
from .schemas import BusSettings, Status

UNINITIALISED = "0"


def _check(body: BusSettings) -> None:
    require_token(body.busName, "busName")
    for name in ("drProvUrl", "topicNsRoot", "bridgeAdminTopic"):
        require(getattr(body, name), name)


def _stored_from(body: BusSettings, version: str) -> BusSettings:
    fields = body.model_dump(exclude={"lastMod", "status", "version"})
    return BusSettings(**fields, version=version, status=Status.VALID, lastMod=wire_now())


def get(session: Session) -> BusSettings:
    return repo.bus_settings(session)


def create(session: Session, body: BusSettings) -> BusSettings:
    """Initialise once; afterwards the stored object is answered unchanged."""
    _check(body)
    stored = repo.bus_settings(session, for_update=True)
    if stored.version != UNINITIALISED:
        return stored
    created = _stored_from(body, body.version if body.version is not None else "1")
    repo.save_bus_settings(session, created)
    return created


def replace(session: Session, body: BusSettings) -> BusSettings:
    """Replace the eight fields; an absent version keeps the stored one (``"1"`` if never set)."""
    _check(body)
    stored = repo.bus_settings(session, for_update=True)
    kept = stored.version if stored.version != UNINITIALISED else "1"
    replaced = _stored_from(body, body.version if body.version is not None else kept)
    repo.save_bus_settings(session, replaced)
    return replaced
