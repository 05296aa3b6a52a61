"""File distribution (spec 4.2): feeds, subscriptions, publish, delivery and logs."""

from .app import create_app

__all__ = ["create_app"]
