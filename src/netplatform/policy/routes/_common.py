"""HTTP details the policy route modules share: request bodies and the OpenAPI responses.

Every answer is JSON, or YAML when the client's Accept header prefers it; request bodies are
JSON or YAML (node templates: JSON only). Path names and versions are checked by the routes,
so the service objects only ever see well-formed keys.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Request

from ...web.openapi import answers
from ..media_types import JSON_MEDIA_TYPE, YAML_MEDIA_TYPE
from ..request_bodies import decode
from ..schemas import NAME_SCHEMA, VERSION_SCHEMA
from ..spec import SPEC
from ..tosca import REPEATABLE_MAPS
from ..versions import JSON_SELECTOR_PATTERN

CREATE_ERRORS = (406, 409, 413, 415)


ALSO_YAML: dict[str, Any] = {YAML_MEDIA_TYPE: {}}
"""The media type every answer also comes in, beside JSON."""


def documented(model: Any, *errors: int) -> dict[int | str, dict[str, Any]]:
    """The responses of a route: 200 with ``model`` and each error status, JSON or YAML."""
    return answers(SPEC, model, 400, 401, *errors, content=ALSO_YAML)


def template_body(schema: dict[str, Any], *media_types: str) -> dict[str, Any]:
    """The documented request body: ``schema`` in each media type the route reads."""
    return {
        "requestBody": {
            "required": True,
            "content": {media_type: {"schema": schema} for media_type in media_types},
        }
    }


BOTH_MEDIA_TYPES = (JSON_MEDIA_TYPE, YAML_MEDIA_TYPE)

# Path parameters document the syntax the routes check (a bad one is 400 with the reference's
# message, so FastAPI does not validate them itself: the schema is documentation only).
NamePath = Annotated[str, Path(json_schema_extra=NAME_SCHEMA)]
VersionPath = Annotated[str, Path(json_schema_extra=VERSION_SCHEMA)]
SelectorPath = Annotated[
    str,
    Path(
        description="An exact version, or `latest` for the highest one",
        json_schema_extra={**VERSION_SCHEMA, "pattern": JSON_SELECTOR_PATTERN},
    ),
]


def read_template(request: Request, body: bytes, *, yaml_allowed: bool = True) -> Any:
    """The body as plain data, parsed by its Content-Type (415 for a type not taken)."""
    return decode(
        body,
        request.headers.get("content-type"),
        yaml_allowed=yaml_allowed,
        repeatable_maps=REPEATABLE_MAPS,
    )
