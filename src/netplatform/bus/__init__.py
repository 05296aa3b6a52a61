"""Bus controller (spec 4.3): sites, clusters, topics, clients, bridges, distribution provisioning."""

from .app import create_app

__all__ = ["create_app"]
