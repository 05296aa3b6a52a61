"""Site locations: where clusters, nodes and clients are deployed (central or edge layer)."""

from __future__ import annotations

from ..clock import wire_now
from ..store.db import Database
from ..web.errors import Conflict, NotFound
from .bridges import BridgeLimits
from .checks import require
from .clients import topology_changed
from .outbound.router.provisioning import RouterProvisioner
from .repository import rows
from .repository.locks import lock_topology
from .schemas import Status, SvcLocation

UNCHANGEABLE = {"svcLocationName", "status", "lastMod", "central", "local"}


def _not_found() -> NotFound:
    return NotFound("svcLocation does not exist", fields="svcLocation")


class SiteLocations:
    """Site locations; a change re-matches the clients there and recomputes bridges (topology lock held),
    then provisions on the routers what that made NEW."""

    def __init__(self, db: Database, limits: BridgeLimits, routers: RouterProvisioner) -> None:
        self.db = db
        self.limits = limits
        self.routers = routers

    def all(self) -> list[SvcLocation]:
        with self.db.read() as session:
            return rows.list_all(session, rows.LOCATIONS)

    def get(self, name: str) -> SvcLocation:
        with self.db.read() as session:
            location = rows.get(session, rows.LOCATIONS, name)
        if location is None:
            raise _not_found()
        return location

    def create(self, body: SvcLocation) -> SvcLocation:
        require(body.svcLocationName, "svcLocationName")
        location = body.model_copy(update={"status": Status.VALID.value, "lastMod": wire_now()})
        with self.db.write() as session:
            lock_topology(session)
            try:
                rows.insert_object(session, rows.LOCATIONS, location)
            except rows.Duplicate:
                raise Conflict("svcLocation already exists", fields="svcLocation") from None
            topology_changed(session, self.limits, location.svcLocationName or "")
        self.routers.provision_pending()
        return location

    def update(self, name: str, body: SvcLocation) -> SvcLocation:
        """Fields present in the body replace the stored ones; the path's name wins."""
        changes = {field: getattr(body, field) for field in body.model_fields_set - UNCHANGEABLE}
        with self.db.write() as session:
            lock_topology(session)
            location = rows.get(session, rows.LOCATIONS, name)
            if location is None:
                raise _not_found()
            updated = SvcLocation.model_validate(
                {**location.model_dump(), **changes, "status": Status.VALID.value, "lastMod": wire_now()}
            )
            rows.update_object(session, rows.LOCATIONS, name, updated)
            topology_changed(session, self.limits, name)
        self.routers.provision_pending()
        return updated

    def delete(self, name: str) -> None:
        with self.db.write() as session:
            lock_topology(session)
            if not rows.delete_object(session, rows.LOCATIONS, name):
                raise _not_found()
            topology_changed(session, self.limits, name)
        self.routers.provision_pending()
