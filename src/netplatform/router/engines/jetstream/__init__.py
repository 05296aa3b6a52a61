"""The NATS JetStream engine: ``engine.py`` the Engine, ``link.py`` the connection it talks over."""

from __future__ import annotations

from .engine import JetStreamEngine
from .link import consumer_name, stream_name, stream_subject

__all__ = ["JetStreamEngine", "consumer_name", "stream_name", "stream_subject"]
