"""Site locations: where clusters, nodes and clients are deployed (central or edge layer)."""

from __future__ import annotations

from ..clock import wire_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import Conflict, NotFound
from .bridges import BridgeLimits
from .checks import require
from .clients import topology_changed
from .outbound.router.provisioning import RouterProvisioner
from .repository.rows import LOCATIONS, Duplicate
from .repository.topology import TopologyRepository
from .schemas import Status, SvcLocation

UNCHANGEABLE = {"svcLocationName", "status", "lastMod", "central", "local"}


def _not_found() -> NotFound:
    return NotFound("svcLocation does not exist", fields="svcLocation")


class SiteLocations:
    """Site locations; a change re-matches the clients there and recomputes bridges (topology lock held),
    then provisions on the routers what that made NEW."""

    def __init__(self, db: Database, limits: BridgeLimits, routers: RouterProvisioner) -> None:
        self.unit = UnitOfWork(db, TopologyRepository)
        self.limits = limits
        self.routers = routers

    def all(self) -> list[SvcLocation]:
        return self.unit.read(lambda repo: repo.list_all(LOCATIONS))

    def get(self, name: str) -> SvcLocation:
        location = self.unit.read(lambda repo: repo.get(LOCATIONS, name))
        if location is None:
            raise _not_found()
        return location

    def create(self, body: SvcLocation) -> SvcLocation:
        require(body.svcLocationName, "svcLocationName")
        location = body.model_copy(update={"status": Status.VALID.value, "lastMod": wire_now()})

        def create(repo: TopologyRepository) -> None:
            repo.lock_topology()
            try:
                repo.insert(LOCATIONS, location)
            except Duplicate:
                raise Conflict("svcLocation already exists", fields="svcLocation") from None
            topology_changed(repo, self.limits, location.svcLocationName or "")

        self.unit.write(create, retry=False)
        self.routers.provision_pending()
        return location

    def update(self, name: str, body: SvcLocation) -> SvcLocation:
        """Fields present in the body replace the stored ones; the path's name wins."""
        changes = {field: getattr(body, field) for field in body.model_fields_set - UNCHANGEABLE}

        def update(repo: TopologyRepository) -> SvcLocation:
            repo.lock_topology()
            location = repo.get(LOCATIONS, name)
            if location is None:
                raise _not_found()
            updated = SvcLocation.model_validate(
                {**location.model_dump(), **changes, "status": Status.VALID.value, "lastMod": wire_now()}
            )
            repo.update(LOCATIONS, name, updated)
            topology_changed(repo, self.limits, name)
            return updated

        updated = self.unit.write(update, retry=False)
        self.routers.provision_pending()
        return updated

    def delete(self, name: str) -> None:
        def delete(repo: TopologyRepository) -> None:
            repo.lock_topology()
            if not repo.delete(LOCATIONS, name):
                raise _not_found()
            topology_changed(repo, self.limits, name)

        self.unit.write(delete, retry=False)
        self.routers.provision_pending()
