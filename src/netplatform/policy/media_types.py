"""Media types of the policy service: JSON or YAML in, JSON or YAML out (spec 4.4).

Bodies are JSON (also when no Content-Type is given, and any ``+json`` type) or YAML (node
templates: JSON only); anything else is 415. Answers, errors included, are JSON unless the
client's Accept header prefers YAML. Headers are read by the kernel's parser
(:mod:`netplatform.web.media`): a quality that is not a number (or not in 0..1) is 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

import yaml
from starlette.requests import Request

from ..web.errors import UnsupportedMediaType
from ..web.media import accept_ranges, parse_media_type, quality_of

JSON_MEDIA_TYPE = "application/json"
YAML_MEDIA_TYPE = "application/yaml"
JSON_TYPES = frozenset({JSON_MEDIA_TYPE})
YAML_TYPES = frozenset({YAML_MEDIA_TYPE, "application/x-yaml", "text/yaml", "text/x-yaml"})

_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class BodyFormat(Enum):
    JSON = "json"
    YAML = "yaml"


def body_format(content_type: str | None, *, yaml_allowed: bool = True) -> BodyFormat:
    """How to parse a request body declared as ``content_type``, else 415."""
    media_type, _ = parse_media_type(content_type)
    if media_type in YAML_TYPES and yaml_allowed:
        return BodyFormat.YAML
    if media_type in JSON_TYPES or media_type == "" or media_type.endswith("+json"):
        return BodyFormat.JSON
    accepted = "application/json or application/yaml" if yaml_allowed else "application/json"
    raise UnsupportedMediaType(f'Content-Type "{content_type}" is not supported, use {accepted}')


def prefers_yaml(accept: str | None) -> bool:
    """True when a YAML media type has a higher quality than JSON (ties: the one listed first).

    Only an explicit YAML type counts for YAML, so ``*/*`` and a missing header mean JSON.
    """
    ranges = accept_ranges(accept)
    yaml_rank = quality_of(ranges, YAML_TYPES, wildcards=False)
    json_rank = quality_of(ranges, JSON_TYPES)
    return yaml_rank[0] > 0 and yaml_rank > json_rank


@dataclass(frozen=True)
class Rendered:
    """An answer body ready to send (what the read cache keeps)."""

    body: bytes
    media_type: str


def answer_format(request: Request) -> BodyFormat:
    """The format of the answer to ``request``: YAML when its Accept header prefers it, else JSON."""
    return BodyFormat.YAML if prefers_yaml(request.headers.get("accept")) else BodyFormat.JSON


def encode(data: Any, form: BodyFormat) -> Rendered:
    if form is BodyFormat.YAML:
        text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False)
        return Rendered(text.encode("utf-8"), YAML_MEDIA_TYPE)
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Rendered(body, JSON_MEDIA_TYPE)
