"""A part of the platform calling another on behalf of a caller, with the caller's permissions.

The blueprint execution reads the config tree for the identity that asked for the run: it
presents a credential of its own and names the caller in :data:`ACTING_FOR_HEADER`. The kernel
of the called service takes the header only from an identity holding
``platform.<service>.actas|<caller>|call`` (:func:`acting_permission`; a type of its own, so no
``platform.<service>.internal|*|call`` grant of the node role covers it), and then decides the
route's permission for the named caller: the request can do exactly what the caller could.
From any other identity the header is refused (403), never ignored: a request that names a
caller must not be decided on anyone else's permissions.
"""

from __future__ import annotations

from .permissions import Permission, ServicePermissions

ACTING_FOR_HEADER = "X-PLATFORM-ACTING-FOR"
ACTING_ACTION = "call"


def acting_type(service: str) -> str:
    return ServicePermissions(service).act_as_type


def acting_permission(service: str, caller: str) -> Permission | None:
    """What an identity needs to act for ``caller`` on ``service``; None when no identity can
    be named so (not an instance a permission can hold)."""
    try:
        return Permission.of(acting_type(service), caller, ACTING_ACTION)
    except ValueError:
        return None
