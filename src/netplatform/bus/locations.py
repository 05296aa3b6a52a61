"""Site locations: where clusters, nodes and clients are deployed (central or edge layer)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..clock import wire_now
from ..settings import Settings
from ..web.errors import Conflict, NotFound
from . import repository as repo
from .checks import require
from .clients import topology_changed
from .schemas import Status, SvcLocation


def _not_found() -> NotFound:
    return NotFound("svcLocation does not exist", fields="svcLocation")


def list_locations(session: Session) -> list[SvcLocation]:
    return repo.list_all(session, repo.LOCATIONS)


def get(session: Session, name: str) -> SvcLocation:
    location = repo.get(session, repo.LOCATIONS, name)
    if location is None:
        raise _not_found()
    return location


def create(session: Session, settings: Settings, body: SvcLocation) -> SvcLocation:
    require(body.svcLocationName, "svcLocationName")
    repo.bus_settings(session, for_update=True)
    location = body.model_copy(update={"status": Status.VALID.value, "lastMod": wire_now()})
    try:
        repo.insert_object(session, repo.LOCATIONS, location)
    except repo.Duplicate:
        raise Conflict("svcLocation already exists", fields="svcLocation") from None
    topology_changed(session, settings, location.svcLocationName or "")
    return location


def update(session: Session, settings: Settings, name: str, body: SvcLocation) -> SvcLocation:
    """Fields present in the body replace the stored ones; the path's name wins."""
    repo.bus_settings(session, for_update=True)
    location = get(session, name)
    given = body.model_fields_set - {"svcLocationName", "status", "lastMod", "central", "local"}
    changes = {field: getattr(body, field) for field in given}
    updated = SvcLocation.model_validate(
        {**location.model_dump(), **changes, "status": Status.VALID.value, "lastMod": wire_now()}
    )
    repo.update_object(session, repo.LOCATIONS, name, updated)
    topology_changed(session, settings, name)
    return updated


def delete(session: Session, settings: Settings, name: str) -> None:
    repo.bus_settings(session, for_update=True)
    if not repo.delete_object(session, repo.LOCATIONS, name):
        raise _not_found()
    topology_changed(session, settings, name)
