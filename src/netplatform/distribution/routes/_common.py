"""HTTP details the route modules share: path ids, 405s and the OpenAPI documentation of bodies."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel

from ...web.errors import BadRequest, MethodNotAllowed
from ..links import positive_id


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

    router.add_api_route(path, refuse, methods=methods, include_in_schema=False)


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


def json_request_body(model: type[BaseModel], vendor_type: str) -> dict[str, Any]:
    """``openapi_extra`` documenting a JSON body sent as the vendor type or application/json."""
    schema = inline_schema(model)
    return {
        "requestBody": {
            "required": True,
            "content": {vendor_type: {"schema": schema}, "application/json": {"schema": schema}},
        }
    }
