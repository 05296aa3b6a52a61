"""HTTP details the route modules share: path ids, 405s and the OpenAPI documentation of bodies."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel

from ...web.errors import BadRequest, MethodNotAllowed
from ...web.openapi import stated_request
from ...web.permissions import per_object
from ..access import MAX_IDENTITY_LENGTH, ON_BEHALF_OF
from ..links import positive_id

ID_PATTERN = "^[1-9][0-9]{0,8}$"
"""A feed or subscription number as the document states it (the handler also takes leading zeros)."""


def object_id(kind: str) -> Any:
    """The path parameter of a feed or subscription number: checked by the handler (its 400 text)."""
    return Path(
        description=f"The {kind} number: a positive integer of at most 9 digits",
        json_schema_extra={"pattern": ID_PATTERN},
    )


FeedId = Annotated[str, object_id("feed")]
SubId = Annotated[str, object_id("subscription")]

IDENTITY_HEADER: dict[str, Any] = {
    "name": ON_BEHALF_OF,
    "in": "header",
    "required": True,
    "description": f"Whom the caller acts for (1-{MAX_IDENTITY_LENGTH} characters), as the reference"
    " requires it. Only an identity holding platform.distribution.actas (the bus controller,"
    " administrators) may name another; any other identity acts as itself: it names itself or leaves"
    f" the header out (as it must when its name is longer than {MAX_IDENTITY_LENGTH} characters), and"
    " naming another in a write is 403",
    "schema": {"type": "string", "pattern": f"^[!-~]{{1,{MAX_IDENTITY_LENGTH}}}$"},
}
"""The reference's callers (the bus controller, administrators) get 400 without it; the
dependency reads it as optional to word that 400 and to let other identities act as themselves."""
CALLER_STATED = stated_request(parameters=(IDENTITY_HEADER,))


def parse_object_id(text: str, message: str) -> int:
    """A feed or subscription id from the path: a positive integer, else 400 ``message``."""
    number = positive_id(text)
    if number is None:
        raise BadRequest(message)
    return number


def refuse_methods(router: APIRouter, path: str, methods: list[str], url_name: str) -> None:
    """Answer 405 with the reference's text for methods a resource does not support."""

    def refuse(request: Request) -> Response:
        raise MethodNotAllowed(f"{request.method} not allowed for the {url_name}.")

    # Any authenticated caller learns the method is not allowed here (as before authorization).
    declaration = per_object("the method is not allowed here (405)")
    router.add_api_route(path, refuse, methods=methods, include_in_schema=False, openapi_extra=declaration)


# --- OpenAPI ---------------------------------------------------------------------------------


def inline_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema with its nested models written in place (no components needed)."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            reference = node.get("$ref")
            if isinstance(reference, str) and reference.startswith("#/$defs/"):
                return resolve(definitions[reference.removeprefix("#/$defs/")])
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    resolved: dict[str, Any] = resolve(schema)
    return resolved


def json_request_body(model: type[BaseModel], vendor_type: str, **extra: Any) -> dict[str, Any]:
    """``openapi_extra`` of a provisioning route taking a JSON body (the vendor type or
    application/json) from a caller named in the on-behalf-of header; ``extra`` merged in (the
    route's permission)."""
    schema = inline_schema(model)
    body = {
        "required": True,
        "content": {vendor_type: {"schema": schema}, "application/json": {"schema": schema}},
    }
    return {**stated_request(body=body, parameters=(IDENTITY_HEADER,)), **extra}
