"""How a route declares the permission it needs (the permissions themselves, and how a granted
one matches a required one, are access/permissions.py's).

Every route declares what it needs beside its other metadata, as :data:`~.auth.PUBLIC` does:
``openapi_extra=requires(API.read("topics"))``. The kernel reads the declaration before the
handler runs (403 in the service's own error body when the caller lacks it), and the OpenAPI
document shows it as the operation's ``x-permission``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..access.permissions import Permission

PERMISSION_KEY = "x-permission"
RULE_KEY = "x-permission-rule"
AUTHENTICATED = "authenticated"
"""The declared permission of a route that any authenticated identity may call, where a
per-object rule (a topic's ACL, a feed's endpoint identities) decides in the handler."""


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
