"""Message router (issue 14): topics with ACLs, publish and long-poll fetch by consumer group."""

from .app import create_app

__all__ = ["create_app"]
