"""The topology: site locations, clusters, topics, their clients, the mirror agents bridging
them and the bus settings, read and changed together under one lock."""

from __future__ import annotations

from sqlalchemy.orm import Session

from .bus_settings import BusSettingsRepository
from .clients import ClientRepository
from .locks import lock_topology
from .mirror_makers import MirrorMakerRepository
from .owned_roles import OwnedRoleRepository
from .router_state import RouterStateRepository
from .rows import RowRepository


class TopologyRepository(RowRepository):
    """The topology's rows by natural key, and the queries of its parts on the same session."""

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self.clients = ClientRepository(session)
        self.agents = MirrorMakerRepository(session)
        self.settings = BusSettingsRepository(session)
        self.routers = RouterStateRepository(session)
        self.roles = OwnedRoleRepository(session)

    def lock_topology(self) -> None:
        """:func:`.locks.lock_topology`: take it first in a write transaction."""
        lock_topology(self.session)
