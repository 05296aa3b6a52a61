"""HTTP details the route modules share: callers, bodies, path ids, media types, 405s, OpenAPI."""

from __future__ import annotations

from http import HTTPStatus
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import Response
from pydantic import BaseModel

from ...web.errors import BadRequest, MethodNotAllowed, NotAcceptable, UnsupportedMediaType
from ..access import ON_BEHALF_OF, ON_BEHALF_OF_GROUP, Caller
from ..documents import positive_id
from ..provisioning import Provisioning

FEED_MEDIA_TYPE = "application/vnd.bus-dr.feed"
SUBSCRIPTION_MEDIA_TYPE = "application/vnd.bus-dr.subscription"
LOG_LIST_MEDIA_TYPE = "application/vnd.bus-dr.log-list"
LOG_LIST_CONTENT_TYPE = f"{LOG_LIST_MEDIA_TYPE}; version=1.0"
_VERSIONS = {None, "1.0", "2.0"}
_ACCEPTABLE_LOG_TYPES = {"*/*", "application/*", "application/json", LOG_LIST_MEDIA_TYPE}


def provisioning_caller(
    on_behalf_of: Annotated[
        str | None,
        Header(alias=ON_BEHALF_OF, description="Identity of the caller (1-8 characters); required"),
    ] = None,
    on_behalf_of_group: Annotated[
        str | None, Header(alias=ON_BEHALF_OF_GROUP, description="Group id; same group counts as owner")
    ] = None,
    exclude_authz: Annotated[
        str | None,
        Header(alias="X-EXCLUDE-AUTHZ", description="Accepted; no authorization framework is enabled"),
    ] = None,
) -> Caller:
    """The caller of a feed or subscription route (400 when the on-behalf-of header is unusable)."""
    return Caller.from_headers(on_behalf_of, on_behalf_of_group)


async def raw_body(request: Request) -> bytes:
    """The request body as bytes; parsing waits until the checks that come first have passed."""
    return await request.body()


def parse_object_id(text: str, message: str) -> int:
    """A feed or subscription id from the path: a positive integer, else 400 ``message``."""
    number = positive_id(text)
    if number is None:
        raise BadRequest(message)
    return number


def _media_type(value: str) -> tuple[str, dict[str, str]]:
    kind, *raw_params = value.split(";")
    params = {}
    for raw in raw_params:
        name, _, param_value = raw.partition("=")
        params[name.strip().lower()] = param_value.strip().strip('"')
    return kind.strip().lower(), params


def require_content_type(request: Request, vendor_type: str) -> None:
    """The vendor media type (version absent, 1.0 or 2.0) or application/json, else 415."""
    kind, params = _media_type(request.headers.get("content-type", ""))
    if kind == "application/json" or (kind == vendor_type and params.get("version") in _VERSIONS):
        return
    raise UnsupportedMediaType("Incorrect content-type")


def require_log_list_acceptable(request: Request) -> None:
    """406 unless the Accept header (when present) takes the log-list type or JSON."""
    accept = request.headers.get("accept")
    if accept is None or not accept.strip():
        return
    for entry in accept.split(","):
        kind, params = _media_type(entry)
        if kind in _ACCEPTABLE_LOG_TYPES and _quality(params) > 0:
            return
    raise NotAcceptable(f"The Accept header does not allow {LOG_LIST_MEDIA_TYPE}")


def _quality(params: dict[str, str]) -> float:
    try:
        return float(params.get("q", "1"))
    except ValueError:
        return 0.0


CallerDep = Annotated[Caller, Depends(provisioning_caller)]
BodyDep = Annotated[bytes, Depends(raw_body)]


def _provisioning(request: Request) -> Provisioning:
    provisioning: Provisioning = request.app.state.provisioning
    return provisioning


ProvisioningDep = Annotated[Provisioning, Depends(_provisioning)]


def base_url(request: Request) -> str:
    """Where links point: ``NETPLATFORM_DISTRIBUTION_PUBLIC_URL``, else scheme://host:port of the request."""
    return (request.app.state.settings.distribution_public_url or str(request.base_url)).rstrip("/")


def refuse_methods(router: APIRouter, path: str, methods: list[str], url_name: str) -> None:
    """Answer 405 with the reference's text for methods a resource does not support."""

    def refuse(request: Request) -> Response:
        raise MethodNotAllowed(f"{request.method} not allowed for the {url_name}.")

    router.add_api_route(path, refuse, methods=methods, include_in_schema=False)


# --- OpenAPI ---------------------------------------------------------------------------------


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI responses for error statuses, each a text/plain message."""
    return {
        status: {
            "description": HTTPStatus(status).phrase,
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
        for status in statuses
    }


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
