"""Config tree (spec 4.5): the YANG-modelled brg-allotted-resources subtree, RESTCONF style."""

from .app import create_app

__all__ = ["create_app"]
