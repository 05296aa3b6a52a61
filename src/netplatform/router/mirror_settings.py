"""The mirror settings the bus controller tells this router, kept in its database (issue 24,
point 6): which topic is the bridge-admin topic, and the credential agents present to sources.

The bus controller PUTs them when it registers the cluster and when its settings change
(``PUT /internal/mirror-settings``); every instance over the database and every restart sees
them. The environment still wins where it is set: NETPLATFORM_ROUTER_BRIDGE_ADMIN_TOPIC over the
stored topic, NETPLATFORM_ROUTER_MIRROR_USER (and _PASSWORD) over the stored credential.

The stored credential is the bus controller's own router credential, which it already presents
to every registered cluster's router, sources included: an agent presents to a source only
what the bus presents to that host already. It is stored in clear, since it must be presented
(as distribution keeps subscription delivery passwords), and is never answered by any route.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from anyio.to_thread import run_sync

from ..clock import now_ms
from ..settings import Settings
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .repository.mirrors import MirrorRepository, StoredSettings


@dataclass(frozen=True)
class EffectiveSettings:
    """What the mirror agents follow: the stored settings with the environment's overrides."""

    stored: StoredSettings
    admin_topic: str  # "": this router runs no mirror agents
    admin_topic_override: bool  # NETPLATFORM_ROUTER_BRIDGE_ADMIN_TOPIC is set and wins
    source_user: str | None
    credentials: tuple[str, str] | None  # presented to source routers; None: none
    credential_override: bool  # NETPLATFORM_ROUTER_MIRROR_USER is set and wins


class MirrorSettings:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.unit = UnitOfWork(db, MirrorRepository)
        self.env_admin_topic = settings.router_bridge_admin_topic
        self.env_user = settings.router_mirror_user or None
        self.env_password = settings.router_mirror_password
        self.current = self._effective(StoredSettings())
        """As last read from the database (at start: the environment alone); the supervisor reads
        it again every round, a PUT here sets it at once."""
        self._router_id: str | None = None

    async def router_id(self) -> str:
        """This router's id, the same on every instance over its database (read once)."""
        if self._router_id is None:
            made = uuid.uuid4().hex
            found: str = await run_sync(self.unit.write, lambda mirrors: mirrors.router_id(made))
            self._router_id = found
            return found
        return self._router_id

    async def effective(self) -> EffectiveSettings:
        """Read from the database now (and kept as :attr:`current`)."""
        stored = await run_sync(self.unit.read, lambda mirrors: mirrors.settings())
        self.current = self._effective(stored)
        return self.current

    async def store(self, wanted: StoredSettings) -> EffectiveSettings:
        def work(mirrors: MirrorRepository) -> StoredSettings:
            mirrors.store_settings(wanted, now_ms())
            return mirrors.settings()

        self.current = self._effective(await run_sync(self.unit.write, work))
        return self.current

    def _effective(self, stored: StoredSettings) -> EffectiveSettings:
        if self.env_user:
            user: str | None = self.env_user
            password = self.env_password
        else:
            user, password = stored.source_user, stored.source_password
        return EffectiveSettings(
            stored=stored,
            admin_topic=self.env_admin_topic or stored.admin_topic,
            admin_topic_override=bool(self.env_admin_topic),
            source_user=user,
            credentials=(user, password) if user and password is not None else None,
            credential_override=bool(self.env_user),
        )
