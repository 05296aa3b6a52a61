"""The web console: server-rendered pages over the services' public HTTP APIs (issue 18)."""

from .app import create_app

__all__ = ["create_app"]
