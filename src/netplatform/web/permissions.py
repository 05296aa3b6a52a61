"""Permissions: ``type|instance|action``, how a granted one matches a required one, and how a
route declares the one it needs.

The model is the reference authorization framework's (docs/security.md, reference authz.md
1.1): a permission names a *type* (``platform.bus.api``), an *instance* of it (``topics``,
``:topic.org.alarms``) and an *action* (``read``). Roles are granted permissions; identities
are members of roles. A granted instance or action ``*`` matches anything, a granted action may
be a comma list, an instance in key form (``:a:b:*``) matches segment by segment. One addition:
a granted *type* ``*`` matches every type, so ``platform.admin`` is the one grant ``*|*|*``.

Every route declares what it needs beside its other metadata, as :data:`~.auth.PUBLIC` does:
``openapi_extra=requires(API.read("topics"))``. The kernel reads the declaration before the
handler runs (403 in the service's own error body when the caller lacks it), and the OpenAPI
document shows it as the operation's ``x-permission``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

PERMISSION_KEY = "x-permission"
RULE_KEY = "x-permission-rule"
AUTHENTICATED = "authenticated"
"""The declared permission of a route that any authenticated identity may call, where a
per-object rule (a topic's ACL, a feed's endpoint identities) decides in the handler."""

_PART = re.compile(r"[^|\s][^|]*")


@dataclass(frozen=True, order=True)
class Permission:
    type: str
    instance: str
    action: str

    def __str__(self) -> str:
        return f"{self.type}|{self.instance}|{self.action}"

    @classmethod
    def parse(cls, text: str) -> Permission:
        parts = text.split("|")
        if len(parts) != 3:
            raise ValueError(f"a permission is type|instance|action, not {text!r}")
        return cls.of(*parts)

    @classmethod
    def of(cls, type_: str, instance: str, action: str) -> Permission:
        """A permission from its three parts; ValueError naming the bad part."""
        for name, value in (("type", type_), ("instance", instance), ("action", action)):
            if not value or len(value) > 255 or not _PART.fullmatch(value) or "\x00" in value:
                raise ValueError(f"permission {name} must be 1-255 characters without '|': {value!r}")
        return cls(type_, instance, action)

    def as_json(self) -> dict[str, str]:
        return {"type": self.type, "instance": self.instance, "action": self.action}


def matches(granted: Permission, required: Permission) -> bool:
    """Whether a permission a role was granted covers one a route requires."""
    if granted.type != "*" and granted.type != required.type:
        return False
    return _instance_matches(granted.instance, required.instance) and _action_matches(
        granted.action, required.action
    )


def any_matches(granted: Iterable[Permission], required: Permission) -> bool:
    return any(matches(permission, required) for permission in granted)


def _action_matches(granted: str, required: str) -> bool:
    return granted == "*" or required in (item.strip() for item in granted.split(","))


def _instance_matches(granted: str, required: str) -> bool:
    if granted == "*":
        return True
    if granted.startswith(":"):
        return required.startswith(":") and _key_matches(granted, required)
    if required.startswith(":"):
        return False
    return any(_item_matches(item.strip(), required) for item in granted.split(","))


def _item_matches(item: str, value: str) -> bool:
    if item.endswith("*"):
        return value.startswith(item[:-1])
    return item == value


def _segments(key: str) -> list[str]:
    return re.split(r"[:/]", key[1:])


def _key_matches(granted: str, required: str) -> bool:
    wanted = _segments(granted)
    given = _segments(required)
    open_ended = wanted[-1] == "*"
    if len(given) < len(wanted) or (len(given) > len(wanted) and not open_ended):
        return False
    for index, pattern in enumerate(wanted):
        if open_ended and index == len(wanted) - 1:
            return True
        if not _segment_matches(pattern, given[index]):
            return False
    return True


def _segment_matches(pattern: str, value: str) -> bool:
    if pattern == "*":
        return True
    for item in pattern.split(","):
        if item.startswith("!"):
            try:
                if re.fullmatch(item[1:], value):
                    return True
            except re.error:
                continue
        elif _item_matches(item, value):
            return True
    return False


# --- declarations ---------------------------------------------------------------------------


def requires(permission: Permission | Mapping[str, Permission], **extra: Any) -> dict[str, Any]:
    """``openapi_extra`` of a route that needs ``permission``.

    A route serving several methods passes a mapping from method to permission (``"*"`` for the
    methods not named). Merge with the route's other declarations:
    ``openapi_extra={**STREAMED_BODY, **requires(...)}``.
    """
    if isinstance(permission, Permission):
        return {PERMISSION_KEY: str(permission), **extra}
    return {PERMISSION_KEY: {method: str(value) for method, value in permission.items()}, **extra}


def per_object(rule: str, **extra: Any) -> dict[str, Any]:
    """``openapi_extra`` of a route any authenticated identity passes, ``rule`` deciding per object."""
    return {PERMISSION_KEY: AUTHENTICATED, RULE_KEY: rule, **extra}


def declared(openapi_extra: Mapping[str, Any] | None, method: str) -> Permission | str | None:
    """What a route's declaration requires of ``method``: a permission, :data:`AUTHENTICATED`,
    or None when the route declares nothing."""
    value = (openapi_extra or {}).get(PERMISSION_KEY)
    if isinstance(value, Mapping):
        value = value.get(method, value.get("*"))
    if value is None or value == AUTHENTICATED:
        return value
    return _parsed(value)


@lru_cache(maxsize=1024)
def _parsed(text: str) -> Permission:
    return Permission.parse(text)


@dataclass(frozen=True)
class ServicePermissions:
    """The permissions of one service's own API: ``platform.<service>.api|<resource>|read|write``,
    ``platform.<service>.internal|<resource>|call`` (node-to-node routes),
    ``platform.<service>.admin|<resource>|write`` (administrators only) and
    ``platform.<service>.actas|*|call`` (acting for another identity)."""

    service: str

    @property
    def api_type(self) -> str:
        return f"platform.{self.service}.api"

    @property
    def internal_type(self) -> str:
        return f"platform.{self.service}.internal"

    def read(self, resource: str) -> Permission:
        return Permission(self.api_type, resource, "read")

    def write(self, resource: str) -> Permission:
        return Permission(self.api_type, resource, "write")

    def internal(self, resource: str) -> Permission:
        return Permission(self.internal_type, resource, "call")

    @property
    def admin_type(self) -> str:
        return f"platform.{self.service}.admin"

    def admin(self, resource: str) -> Permission:
        """What only an administrator of the service may do, a writer not: what decides where
        the platform sends its own credentials (clusters, nodes, the bridge-admin topic)."""
        return Permission(self.admin_type, resource, "write")

    @property
    def act_as_type(self) -> str:
        return f"platform.{self.service}.actas"

    def act_as(self) -> Permission:
        """Acting for another identity on this service (an on-behalf-of header is honoured only
        from holders): the platform's own identities that call for someone, and administrators."""
        return Permission(self.act_as_type, "*", "call")

    def by_method(self, resource: str) -> dict[str, Permission]:
        """GET reads, every other method writes (a route serving several methods)."""
        return {"GET": self.read(resource), "HEAD": self.read(resource), "*": self.write(resource)}
