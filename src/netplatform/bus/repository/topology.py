"""The topology: site locations, clusters, topics, their clients, the mirror agents bridging
them and the bus settings, read and changed together under one lock."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..bridge_plans import Topology
from .bus_settings import BusSettingsRepository
from .clients import ClientRepository
from .locks import lock_topology
from .mirror_makers import MirrorMakerRepository
from .owned_roles import OwnedRoleRepository
from .router_state import RouterStateRepository
from .rows import CLUSTERS, LOCATIONS, RowRepository


class TopologyRepository(RowRepository):
    """The topology's rows by natural key, and the queries of its parts on the same session."""

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self.clients = ClientRepository(session)
        self.agents = MirrorMakerRepository(session)
        self.settings = BusSettingsRepository(session)
        self.routers = RouterStateRepository(session)
        self.roles = OwnedRoleRepository(session)

    def topology(self, central_cname: str | None) -> Topology:
        """The site locations and clusters, as the bridge plans read them (bridge_plans.py)."""
        locations = {loc.svcLocationName or "": loc for loc in self.list_all(LOCATIONS)}
        return Topology(locations, self.list_all(CLUSTERS), central_cname)

    def lock_topology(self) -> None:
        """:func:`.locks.lock_topology`: take it first in a write transaction."""
        lock_topology(self.session)
