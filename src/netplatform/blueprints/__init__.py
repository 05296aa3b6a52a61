"""Blueprint catalog (spec 4.1, "the service"): CBA archives, model types, dictionaries, configs."""

from .app import create_app

__all__ = ["create_app"]
