"""``/actuator/mappings``: the listing of this service's endpoints, read from its routing table.

Each entry is built from a live route (methods, path, what it consumes and produces, the Python
function serving it), so the listing cannot drift from the code.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from fastapi.routing import APIRoute

JSON = "application/json"


def endpoint_listing(routes: Iterable[APIRoute]) -> dict[str, Any]:
    entries = [_entry(route) for route in routes]
    return {
        "contexts": {
            "application": {"mappings": {"dispatcherHandlers": {"webHandler": entries}}, "parentId": None}
        }
    }


def _entry(route: APIRoute) -> dict[str, Any]:
    methods = sorted(route.methods or ())
    consumes = _consumes(route)
    produces = _produces(route)
    predicate = f"{{{' || '.join(methods)} {route.path}"
    if consumes:
        predicate += f", consumes [{', '.join(consumes)}]"
    if produces:
        predicate += f", produces [{', '.join(produces)}]"
    predicate += "}"
    endpoint = route.endpoint
    descriptor = str(inspect.signature(endpoint))
    return {
        "predicate": predicate,
        "handler": f"{endpoint.__module__}.{endpoint.__qualname__}{descriptor}",
        "details": {
            "handlerMethod": {
                "className": endpoint.__module__,
                "name": endpoint.__name__,
                "descriptor": descriptor,
            },
            "handlerFunction": None,
            "requestMappingConditions": {
                "consumes": [_media(media) for media in consumes],
                "headers": [],
                "methods": methods,
                "params": [],
                "patterns": [route.path],
                "produces": [_media(media) for media in produces],
            },
        },
    }


def _media(media_type: str) -> dict[str, Any]:
    return {"mediaType": media_type, "negated": False}


def _consumes(route: APIRoute) -> list[str]:
    declared = (route.openapi_extra or {}).get("requestBody", {}).get("content")
    if declared:
        return list(declared)
    if route.body_field is None:
        return []
    media_type = getattr(route.body_field.field_info, "media_type", JSON)
    return [media_type]


def _produces(route: APIRoute) -> list[str]:
    success = route.responses.get(200) or route.responses.get("200") or {}
    declared = success.get("content")
    if declared:
        return list(declared)
    if declared == {}:
        return []
    media_type = getattr(route.response_class, "media_type", None) or JSON
    return [media_type]
