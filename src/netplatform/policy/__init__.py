"""Policy design (spec 4.4): TOSCA policy types, policies, data types and node templates."""

from .app import create_app

__all__ = ["create_app"]
