"""Message engines behind one interface (base.py): the embedded default, or NATS JetStream."""

from __future__ import annotations

from ...settings import Settings
from ...store.db import Database
from .base import Engine


def engine_for(settings: Settings, db: Database) -> Engine:
    """JetStream when NETPLATFORM_ROUTER_NATS_URL is set, else the embedded engine on ``db``."""
    if settings.router_nats_url:
        from .jetstream import JetStreamEngine  # imported only when used: it needs the nats client

        return JetStreamEngine(
            settings.router_nats_url,
            retention_s=settings.router_retention_s,
            max_message_bytes=settings.router_max_message_bytes,
        )
    from .embedded import EmbeddedEngine

    return EmbeddedEngine(
        db,
        retention_s=settings.router_retention_s,
        poll_s=settings.router_poll_ms / 1000,
        max_message_bytes=settings.router_max_message_bytes,
        instance=settings.instance_name,
    )
