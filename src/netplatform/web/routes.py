"""Which route a request is headed for, before the router runs.

Middleware that must decide per route (is it public? may its body stream?) asks the
:class:`RouteTable`, so those decisions are declared once on the route itself
(``openapi_extra``) and nowhere else. The table is built from the routers a service hands to
``build_app``; each router carries its own prefix (``APIRouter(prefix=...)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter
from fastapi.routing import APIRoute
from starlette.convertors import Convertor, register_url_convertor
from starlette.routing import Match
from starlette.types import Scope

from ..access.permissions import Permission
from .bodytypes import DeclaredBody, declared_body
from .permissions import declared

STREAMED_BODY: dict[str, Any] = {"x-streamed-body": True}
"""Pass as ``openapi_extra`` to a route that reads its own (possibly large) body as a stream."""

_DECLARATIONS = "netplatform.route_declarations"
_REMEMBERED_PATHS = 4096


class AnyPathConvertor(Convertor[str]):
    """``{name:any_path}``: like ``path``, but also across newlines.

    Starlette's ``path`` is ``.*``, which stops at a newline, so a ``%0A`` in a key or file name
    fell through to the framework's 404 instead of reaching the service's own checks.
    """

    regex = r"[\s\S]*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("any_path", AnyPathConvertor())

KERNEL_PUBLIC_PATHS = frozenset({"/openapi.json", "/docs", "/docs/oauth2-redirect"})

UNDECLARED = "undeclared"
"""What :meth:`RouteTable.requirement` answers for a route that declares no permission."""

# The declarations of a request no route matches (the framework answers 404 or 405).
_UNMATCHED: dict[str, Any] = {"x-unmatched": True}
_BODY = "netplatform.body"  # the declarations' companion key, in the kernel's own copy


class RouteTable:
    def __init__(self, routers: Sequence[APIRouter]) -> None:
        self.routes: list[APIRoute] = []
        self._declarations: dict[tuple[str, str, str], dict[str, Any]] = {}
        for router in routers:
            for route in router.routes:
                if not isinstance(route, APIRoute):
                    raise TypeError(f"{route!r}: only plain API routes are supported (no nested routers)")
                self.routes.append(route)

    def lookup(self, scope: Scope) -> APIRoute | None:
        for route in self.routes:
            match, _ = route.matches(scope)
            if match == Match.FULL:
                return route
        return None

    def allowed_methods(self, scope: Scope) -> list[str]:
        """Every method of the resource the path names (for ``Allow`` on a 405).

        The framework names only the methods of the first route it tried, while a resource often
        has one route per method. When several templates match (``/models/paged`` also fits
        ``/models/{id}``), the resource is the most specific one: the fewest parameters.
        """
        matching = [route for route in self.routes if route.path_regex.match(scope["path"])]
        if not matching:
            return []
        fewest = min(route.path.count("{") for route in matching)
        return sorted(
            {m for route in matching if route.path.count("{") == fewest for m in (route.methods or ())}
        )

    def _extra(self, scope: Scope) -> dict[str, Any]:
        # The kernel asks twice per request and a lookup tries every route's pattern in turn:
        # remember the answer per request and per (method, path) across requests (bounded).
        state = scope.setdefault("state", {})
        declarations: dict[str, Any] | None = state.get(_DECLARATIONS)
        if declarations is None:
            key = (scope["method"], scope.get("root_path", ""), scope["path"])
            declarations = self._declarations.get(key)
            if declarations is None:
                route = self.lookup(scope)
                declarations = self._declarations_of(route)
                self._remember(key, declarations)
            state[_DECLARATIONS] = declarations
        return declarations

    @staticmethod
    def _declarations_of(route: APIRoute | None) -> dict[str, Any]:
        """The route's ``openapi_extra`` with what the kernel derives from the rest of the route."""
        if route is None:
            return _UNMATCHED
        return {**(route.openapi_extra or {}), _BODY: declared_body(route)}

    def _remember(self, key: tuple[str, str, str], declarations: dict[str, Any]) -> None:
        if len(key[2]) > 1024:  # a path that long is not a hot one; do not hold it
            return
        if len(self._declarations) >= _REMEMBERED_PATHS:
            self._declarations.clear()
        self._declarations[key] = declarations

    def is_public(self, scope: Scope) -> bool:
        return scope["path"] in KERNEL_PUBLIC_PATHS or self._extra(scope).get("security") == []

    def requirement(self, scope: Scope) -> Permission | str | None:
        """What the route of this request needs of its caller (:mod:`.permissions`): a
        permission, ``AUTHENTICATED``, :data:`UNDECLARED`, or None when no route matches."""
        extra = self._extra(scope)
        if extra is _UNMATCHED:
            return None
        required = declared(extra, scope["method"])
        return UNDECLARED if required is None else required

    def streams_body(self, scope: Scope) -> bool:
        return bool(self._extra(scope).get("x-streamed-body"))

    def body(self, scope: Scope) -> DeclaredBody | None:
        """What the route declares of its request body (web/bodytypes.py); None when the route
        is undocumented and declares nothing, or no route matches."""
        found: DeclaredBody | None = self._extra(scope).get(_BODY)
        return found
