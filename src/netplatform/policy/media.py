"""Responses in JSON, or in YAML when the client's Accept header prefers it (spec 4.4)."""

from __future__ import annotations

import json
from typing import Any

import yaml
from starlette.requests import Request
from starlette.responses import Response

from .payload import YAML_TYPES

JSON_MEDIA_TYPE = "application/json"
YAML_MEDIA_TYPE = "application/yaml"
_JSON_RANGES = ("application/json", "application/*", "*/*")

_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def prefers_yaml(accept: str | None) -> bool:
    """True when a YAML media type has a higher quality than JSON (ties: the one listed first).

    Only an explicit YAML type counts for YAML, so ``*/*`` and a missing header mean JSON.
    """
    yaml_rank = json_rank = (0.0, 0)
    for position, item in enumerate((accept or "").split(",")):
        media_type, quality = _media_range(item)
        rank = (quality, -position)
        if media_type in YAML_TYPES:
            yaml_rank = max(yaml_rank, rank)
        elif media_type in _JSON_RANGES:
            json_rank = max(json_rank, rank)
    return yaml_rank[0] > 0 and yaml_rank > json_rank


def _media_range(item: str) -> tuple[str, float]:
    media_type, *parameters = (part.strip() for part in item.split(";"))
    quality = 1.0
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                quality = float(value)
            except ValueError:
                quality = 0.0
    return media_type.lower(), quality


def render(request: Request, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """``data`` as the response body, in the media type the client prefers."""
    if prefers_yaml(request.headers.get("accept")):
        text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False)
        return Response(text.encode("utf-8"), status, headers=headers, media_type=YAML_MEDIA_TYPE)
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Response(body, status, headers=headers, media_type=JSON_MEDIA_TYPE)
