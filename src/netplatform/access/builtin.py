"""The built-in roles: they exist from the start, cannot be deleted, and their permissions are
code, not rows (so an upgrade that adds a route's permission needs no data migration)."""

from __future__ import annotations

from .permissions import Permission, ServicePermissions

ADMIN_ROLE = "platform.admin"
NODE_ROLE = "platform.node"
# The roles of the platform's own identities (access/platform.py), one per hop, each with the
# least it needs.
BUS_ROLE = "platform.bus"
MIRROR_ROLE = "platform.mirror"
EXECUTION_ROLE = "platform.execution"

# Services whose API permissions have built-in reader and writer roles.
ROLE_SERVICES = ("blueprints", "distribution", "bus", "policy", "configtree", "router", "authz")


def _builtin() -> dict[str, tuple[str, tuple[Permission, ...]]]:
    roles: dict[str, tuple[str, tuple[Permission, ...]]] = {
        ADMIN_ROLE: ("Everything, on every service", (Permission("*", "*", "*"),)),
        NODE_ROLE: (
            "The internal routes: distribution nodes forwarding files, mirror agents reading topics,"
            " sites following the central authorization directory",
            (
                ServicePermissions("distribution").internal("*"),
                ServicePermissions("router").internal("*"),
                ServicePermissions("authz").internal("directory"),
            ),
        ),
        **_platform_roles(),
    }
    for service in ROLE_SERVICES:
        permissions = ServicePermissions(service)
        roles[f"{service}.reader"] = (f"Every read of the {service} API", (permissions.read("*"),))
        roles[f"{service}.writer"] = (
            f"Every read and write of the {service} API (internal routes excepted)",
            (Permission(permissions.api_type, "*", "read,write"),),
        )
    return roles


def _platform_roles() -> dict[str, tuple[str, tuple[Permission, ...]]]:
    distribution, router, authz = (ServicePermissions(name) for name in ("distribution", "router", "authz"))
    configtree = ServicePermissions("configtree")
    return {
        BUS_ROLE: (
            "The bus controller's own identity: provisions file distribution (for the owners it names),"
            " the message routers (as their administrator) and the topic roles in authz",
            (
                Permission(distribution.api_type, "*", "read,write"),
                Permission(distribution.internal_type, "route,nodes", "call"),
                distribution.act_as(),
                # Topics it creates; reads and grants are the router's per-topic rules, where
                # the router admin permission lets it grant on every topic and publish to the
                # bridge-admin topic; internal|mirror reads a router's mirror agents.
                router.write("topics"),
                router.internal("mirror"),
                # Whether a client's identity may publish or fetch its topic at a router (issue 38).
                router.internal("access"),
                Permission(router.admin_type, "topics,mirror", "write"),
                Permission(authz.api_type, "role,userRole", "write"),
            ),
        ),
        MIRROR_ROLE: (
            "A router's mirror agents: reading the source routers of their bridges",
            (router.internal("mirror"),),
        ),
        EXECUTION_ROLE: (
            "Blueprint execution: reading the config tree for the caller of a run, with the caller's rights",
            (configtree.act_as(),),
        ),
    }


BUILTIN_ROLES = _builtin()


def is_builtin(role: str) -> bool:
    return role in BUILTIN_ROLES
