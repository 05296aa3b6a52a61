"""The mirror settings the bus controller tells this router, kept in its database (issue 24,
point 6; issue 36, point 2): which topic is the bridge-admin topic, and which hosts mirror agents
may connect to (the routers of the clusters the bus controller registers).

The bus controller PUTs them when it registers a cluster, when its clusters or settings change
and on every reconcile (``PUT /internal/mirror-settings``); every instance over the database and
every restart sees them. The environment still wins where it is set:
NETPLATFORM_ROUTER_BRIDGE_ADMIN_TOPIC over the stored topic; NETPLATFORM_ROUTER_MIRROR_SOURCES
adds hosts to the stored ones.

No credential is told or stored: agents present the router's own, ``svc.mirror``'s (derived from
the platform key, access/platform.py), or NETPLATFORM_ROUTER_MIRROR_USER and _PASSWORD where the
sources do not share the key.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from anyio.to_thread import run_sync

from ..access.platform import MIRROR, credential
from ..clock import now_ms
from ..settings import Settings
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .mirror_source import source_key
from .repository.mirrors import MirrorRepository, StoredSettings


@dataclass(frozen=True)
class EffectiveSettings:
    """What the mirror agents follow: the stored settings with the environment's overrides."""

    stored: StoredSettings
    admin_topic: str  # "": this router runs no mirror agents
    admin_topic_override: bool  # NETPLATFORM_ROUTER_BRIDGE_ADMIN_TOPIC is set and wins
    credentials: tuple[str, str]  # presented to source routers
    credential_override: bool  # NETPLATFORM_ROUTER_MIRROR_USER is set and wins
    sources: frozenset[str]  # source_key of every host agents may connect to

    def allows(self, source_url: str) -> bool:
        """Whether an agent may connect to ``source_url``: a registered cluster's router."""
        return source_key(source_url) in self.sources


class MirrorSettings:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.unit = UnitOfWork(db, MirrorRepository)
        self.env_admin_topic = settings.router_bridge_admin_topic
        self.env_sources = frozenset(
            source_key(url) for url in settings.router_mirror_sources.split(",") if url.strip()
        )
        self.credentials = credential(
            settings, MIRROR, settings.router_mirror_user, settings.router_mirror_password
        )
        self.credential_override = bool(settings.router_mirror_user)
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

    def admin_topic_of(self, wanted: StoredSettings) -> str:
        """The bridge-admin topic the router follows once ``wanted`` is stored."""
        return self.env_admin_topic or wanted.admin_topic

    def _effective(self, stored: StoredSettings) -> EffectiveSettings:
        return EffectiveSettings(
            stored=stored,
            admin_topic=self.admin_topic_of(stored),
            admin_topic_override=bool(self.env_admin_topic),
            credentials=self.credentials,
            credential_override=self.credential_override,
            sources=self.env_sources | {source_key(url) for url in stored.sources},
        )
