"""The built-in roles: they exist from the start, cannot be deleted, and their permissions are
code, not rows (so an upgrade that adds a route's permission needs no data migration)."""

from __future__ import annotations

from ..web.permissions import Permission, ServicePermissions
from .acting import ACTING_ACTION, acting_type

ADMIN_ROLE = "platform.admin"
NODE_ROLE = "platform.node"
EXECUTION_ROLE = "platform.execution"

# Services whose API permissions have built-in reader and writer roles.
ROLE_SERVICES = ("blueprints", "distribution", "bus", "policy", "configtree", "router", "authz")


def _builtin() -> dict[str, tuple[str, tuple[Permission, ...]]]:
    roles: dict[str, tuple[str, tuple[Permission, ...]]] = {
        ADMIN_ROLE: ("Everything, on every service", (Permission("*", "*", "*"),)),
        NODE_ROLE: (
            "The internal routes: distribution nodes forwarding files, mirror agents reading topics",
            (
                ServicePermissions("distribution").internal("*"),
                ServicePermissions("router").internal("*"),
            ),
        ),
        EXECUTION_ROLE: (
            "The blueprint execution reading the config tree for a run's caller, as the caller",
            (Permission(acting_type("configtree"), "*", ACTING_ACTION),),
        ),
    }
    for service in ROLE_SERVICES:
        permissions = ServicePermissions(service)
        roles[f"{service}.reader"] = (f"Every read of the {service} API", (permissions.read("*"),))
        roles[f"{service}.writer"] = (
            f"Every read and write of the {service} API (internal routes excepted)",
            (Permission(permissions.api_type, "*", "read,write"),),
        )
    return roles


BUILTIN_ROLES = _builtin()


def is_builtin(role: str) -> bool:
    return role in BUILTIN_ROLES
