"""The service's OpenAPI document, telling the truth about the kernel's conventions.

FastAPI documents 422 for validation failures and knows nothing of Basic authentication;
the kernel answers 400 and 401 instead, so the document is corrected here, once for all
services (schemathesis holds every service to its document). Every status the kernel can
answer for an operation is added to it here (:data:`KERNEL_STATUSES` says when), so no route
has to remember them; tests/web/test_documented_statuses.py walks every service's document
and route table and fails on an operation that can answer a status its document lacks.
"""

from __future__ import annotations

import copy
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import TypeAdapter

from .bodytypes import UNSAFE_METHODS
from .permissions import AUTHENTICATED, PERMISSION_KEY
from .routes import STREAMED_BODY
from .service import ServiceSpec
from .text import NO_NUL_PATTERN

_METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}
_ERROR_REF = "#/components/schemas/Error"
_STATED = "x-netplatform-stated"
_CONSTRAINED = {"pattern", "enum", "const", "format"}


def document_kernel_conventions(app: FastAPI, spec: ServiceSpec) -> dict[str, Any]:
    if app.openapi_schema:
        return app.openapi_schema
    document = get_openapi(title=app.title, version=app.version, routes=app.routes)
    if spec.openapi_extension is not None:
        spec.openapi_extension(document)
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    components["securitySchemes"] = {"basicAuth": {"type": "http", "scheme": "basic"}}
    document["security"] = [{"basicAuth": []}]
    schemas["Error"] = _error_schema(spec, schemas)
    for path_item in document.get("paths", {}).values():
        for method, operation in path_item.items():
            if method in _METHODS:
                _apply_stated_request(operation)
                _document_no_nul(operation)
                _document_errors(operation, method, spec)
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    app.openapi_schema = document
    return document


def _error_schema(spec: ServiceSpec, schemas: dict[str, Any]) -> dict[str, Any]:
    if spec.error_model is None:
        return {"type": "string"} if spec.error_media_type.startswith("text/") else {}
    schema = TypeAdapter(spec.error_model).json_schema(ref_template="#/components/schemas/{model}")
    for name, definition in schema.pop("$defs", {}).items():
        schemas.setdefault(name, definition)
    return schema


SUCCESS = "Successful Response"
"""How every success entry is described: FastAPI's own words, which it gives the entries it writes."""


def answers(
    spec: ServiceSpec,
    body: Any,
    *errors: int,
    status: int = 200,
    description: str = SUCCESS,
    content: dict[str, Any] | None = None,
    headers: dict[str, Any] | None = None,
) -> dict[int | str, dict[str, Any]]:
    """``responses=`` of a route: its success entry, then the error statuses it can answer with.

    ``body`` is the success body's model (or type: ``list[Feed]``), or ``None`` where there is
    no model to name (no body, or ``content`` says what it is); ``content`` states media types
    beside (or, without a model, instead of) the JSON one; ``description`` says more than
    success where the answer needs words (what a 207 or a 307 means); ``headers`` documents the
    headers the success carries.
    """
    entry: dict[str, Any] = {"description": description}
    if body is not None:
        entry["model"] = body
    if content is not None:
        entry["content"] = content
    if headers is not None:
        entry["headers"] = headers
    return {status: entry, **error_responses(spec, *errors)}


def error_responses(spec: ServiceSpec, *statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries for the error statuses a route can answer with, in the service's body.

    The kernel documents the statuses it answers itself (:data:`KERNEL_STATUSES`); routes name
    the rest.
    """
    return {status: _error_response(_describe(spec, status), spec) for status in statuses}


def _describe(spec: ServiceSpec, status: int) -> str:
    return spec.error_descriptions.get(status) or HTTPStatus(status).phrase


def _error_response(description: str, spec: ServiceSpec) -> dict[str, Any]:
    schema = {"schema": {"$ref": _ERROR_REF}}
    media_types = (spec.error_media_type, *spec.error_media_types)
    return {"description": description, "content": {media_type: schema for media_type in media_types}}


def _document_no_nul(operation: dict[str, Any]) -> None:
    """Path and query strings carry no NUL: the kernel refuses one (middleware/kernel.py)."""
    for parameter in operation.get("parameters", []):
        if parameter.get("in") in ("path", "query"):
            schema = parameter.get("schema", {})
            for branch in (schema, *schema.get("anyOf", [])):
                if branch.get("type") == "string" and not _CONSTRAINED & set(branch):
                    branch["pattern"] = NO_NUL_PATTERN


KERNEL_STATUSES = {
    400: "every operation: input that fails validation, a NUL in the path or query",
    401: "an operation that needs credentials: missing or wrong ones",
    403: "an operation that declares a permission; a POST from another site (web/bodytypes.py)",
    404: "an operation with a path parameter: a value with a '/', or empty, matches no route",
    409: "an operation of an unsafe method: a write that kept losing its race (WriteConflict)",
    413: "an operation that does not stream its body: a Content-Length beyond the limit",
    415: "an operation of an unsafe method: a body of a type it does not declare (web/bodytypes.py)",
    429: "an operation that needs credentials: the throttle of failed attempts (access/throttle.py)",
    503: "every operation: the database, or the authorization data, cannot be read now",
}
"""What the kernel can answer instead of a route, and for which operations."""

_STREAMED = next(iter(STREAMED_BODY))


def kernel_statuses(operation: dict[str, Any], method: str) -> set[int]:
    """The statuses of :data:`KERNEL_STATUSES` the kernel can answer for ``operation``."""
    statuses = {400, 503}
    if operation.get("security") != []:
        statuses |= {401, 429}
    permission = operation.get(PERMISSION_KEY)
    if (isinstance(permission, str) and permission != AUTHENTICATED) or method == "post":
        statuses.add(403)
    if any(parameter.get("in") == "path" for parameter in operation.get("parameters", [])):
        statuses.add(404)
    if method.upper() in UNSAFE_METHODS:
        statuses |= {409, 415}
    if not operation.get(_STREAMED):
        statuses.add(413)
    return statuses


def _document_errors(operation: dict[str, Any], method: str, spec: ServiceSpec) -> None:
    responses = operation.setdefault("responses", {})
    responses.pop("422", None)
    permission = operation.get(PERMISSION_KEY)
    described = {
        400: "Bad request: input that fails validation",
        401: "Missing or wrong credentials",
        403: f"The caller lacks `{permission}`"
        if isinstance(permission, str) and permission != AUTHENTICATED
        else "A form, text or untyped POST from another site (Origin)",
        404: "No such path: a path parameter's value (with a '/', or empty) matches no route",
        409: "A write that kept losing its race to concurrent writers: try again",
        413: "Request body too large",
        415: "A request body of a media type the operation does not take",
        429: "Too many failed authentication attempts: try again after Retry-After seconds",
        503: "The database, or the authorization data, cannot be read now: try again",
    }
    for status in sorted(kernel_statuses(operation, method)):
        responses.setdefault(str(status), _error_response(described[status], spec))


def stated_request(
    *, body: dict[str, Any] | None = None, parameters: tuple[dict[str, Any], ...] = ()
) -> dict[str, Any]:
    """``openapi_extra`` stating what a route accepts where its signature says less.

    FastAPI documents a route from its handler's parameters; a route whose handler checks more
    itself (a header it requires with the reference's own message, a name it refuses unless it
    fits a rule, a body that must name an existing kind) is then documented as taking anything.
    ``parameters`` replace the derived ones of the same name and place (or are added); ``body``
    replaces the derived request body. The route's validation is unchanged.
    """
    stated: dict[str, Any] = {"parameters": list(parameters)}
    if body is not None:
        stated["requestBody"] = body
    return {_STATED: stated}


def _apply_stated_request(operation: dict[str, Any]) -> None:
    stated = operation.pop(_STATED, None)
    if stated is None:
        return
    stated = copy.deepcopy(stated)  # routes share their stated parts; the document is edited below
    if "requestBody" in stated:
        operation["requestBody"] = stated["requestBody"]
    stated_by_key = {(parameter["name"], parameter["in"]): parameter for parameter in stated["parameters"]}
    derived = operation.get("parameters", [])
    derived_keys = {(parameter["name"], parameter["in"]) for parameter in derived}
    merged = [stated_by_key.get((parameter["name"], parameter["in"]), parameter) for parameter in derived]
    merged += [parameter for key, parameter in stated_by_key.items() if key not in derived_keys]
    if merged:
        operation["parameters"] = merged
