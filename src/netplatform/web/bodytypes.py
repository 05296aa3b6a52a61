"""What a request body may be: a media type its operation declares, and nothing cross-site.

A page on another site can make a browser send a POST without asking the server first (no CORS
preflight) when its body is a form (``application/x-www-form-urlencoded``,
``multipart/form-data``), ``text/plain``, or has no ``Content-Type`` at all, and the browser adds
the Basic credentials it has cached for the server. Anything else (JSON, PUT, DELETE) needs a
preflight, which the APIs never grant. So, for every unsafe method (POST, PUT, PATCH, DELETE),
in the kernel, before the service:

1. **415** for a body of a media type the operation does not declare in its OpenAPI request
   body (a body without ``Content-Type`` counts as undeclared unless the operation takes
   ``*/*``; an empty body counts only when labelled as a form or text: an empty cross-site
   form). Applied to every request of an operation whose body the framework parses (a pydantic
   model: FastAPI would refuse the body anyway, with a 400), and to a request an ``Origin``
   header shows to come from another site for every operation. An operation that states its
   request body itself reads and checks it in its own order, which the reference fixes for
   its clients (the file distribution's 404, then 403, then 415), so requests without a foreign
   ``Origin`` are left to it; so are operations that take no body.
2. **403** for a POST from another site (its ``Origin``) of the kinds a page may send unasked,
   a form or text type or none, even where the operation declares it: the message router's
   text publish, the blueprint catalog's multipart uploads, the config tree's bodies without
   a type. (Other methods from another site need a preflight.)

A request without ``Origin`` (every API client that is not a browser) or from the server's own
origin (its ``/docs`` page) is held to rule 1 only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fastapi.routing import APIRoute

from .errors import ApiError, Forbidden, UnsupportedMediaType
from .media import MediaRange, parse_media_type

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# What a page may send without a CORS preflight (the Fetch standard's CORS-safelisted types).
CROSS_SITE_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data", "text/plain"})
_STATED = "x-netplatform-stated"  # web/openapi.py stated_request()


@dataclass(frozen=True)
class DeclaredBody:
    """An operation's request body: its media types (empty: it takes none), and whether the
    framework parses it (a pydantic body) rather than the route itself."""

    media_types: frozenset[str]
    parsed: bool


def declared_body(route: APIRoute) -> DeclaredBody | None:
    """What the route's OpenAPI operation declares of its request body; None when the route is
    not in the document and declares nothing (the config tree's one route, routes that only
    answer 405: they check their bodies, if any, themselves)."""
    extra: Mapping[str, Any] = route.openapi_extra or {}
    stated = extra.get(_STATED, {}).get("requestBody")
    if stated is not None:
        return DeclaredBody(frozenset(str(kind).lower() for kind in stated.get("content", {})), parsed=False)
    by_hand = {str(kind).lower() for kind in extra.get("requestBody", {}).get("content", {})}
    if by_hand:
        return DeclaredBody(frozenset(by_hand), parsed=False)
    if route.body_field is not None:
        media_type = str(getattr(route.body_field.field_info, "media_type", "application/json")).lower()
        return DeclaredBody(frozenset({media_type}), parsed=True)
    return DeclaredBody(frozenset(), parsed=False) if route.include_in_schema else None


def body_refusal(
    method: str,
    declared: DeclaredBody | None,
    content_type: str | None,
    has_body: bool,
    origin: str | None,
    host: str | None,
) -> ApiError | None:
    """The kernel's answer instead of the service's under the two rules above, else None."""
    if method not in UNSAFE_METHODS:
        return None
    media, _ = parse_media_type(content_type)
    foreign = origin is not None and not same_site(origin, host)
    sent = has_body or media in CROSS_SITE_TYPES
    if declared is not None and sent and (declared.parsed or foreign) and not _takes(declared, media):
        return UnsupportedMediaType(_unsupported(media, declared.media_types))
    if method == "POST" and origin is not None and foreign and (media in CROSS_SITE_TYPES or not media):
        return Forbidden(f"A {media or 'untyped'} request from {origin[:200]!r} (another site) is refused")
    return None


def _takes(declared: DeclaredBody, media: str) -> bool:
    if "*/*" in declared.media_types:
        return True
    return bool(media) and any(MediaRange(kind).matches(media) for kind in declared.media_types)


def _unsupported(media: str, declared: frozenset[str]) -> str:
    if not declared:
        return "This operation takes no request body"
    sent = f"Unsupported media type {media}" if media else "A request body needs a Content-Type"
    return f"{sent}; send one of {', '.join(sorted(declared))}"


def same_site(origin: str, host: str | None) -> bool:
    """Whether an ``Origin`` names the host (and port) the request was sent to."""
    if host is None:
        return False
    try:
        named = urlsplit(origin).netloc.lower()
    except ValueError:
        return False
    return bool(named) and named == host.strip().lower()
