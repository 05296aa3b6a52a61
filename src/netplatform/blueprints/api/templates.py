"""``/api/v1/template``: resolved (meshed) templates, keyed by resolution key or by resource."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from ...clock import utc_now
from .. import repository
from ..errors import resource_not_found
from ..formats import FORMAT_WORDS, media_type_of, rendered
from ..repository import ResolutionKey, TemplateRecord
from ..resolutions import template_key
from ..schemas import TemplateResolution
from . import _render as render
from ._http import TEXT_BODY, Name, any_case, database, errors, ok, text_body, text_responses

router = APIRouter(prefix="/api/v1/template", tags=["resolved templates"])
Format = Annotated[
    str,
    Query(
        description="text/plain (default), application/json or application/xml; json and xml for short",
        json_schema_extra=any_case(*FORMAT_WORDS),
    ),
]
BY_KEY = "/{bpName}/{bpVersion}/{artifactName}/{resolutionKey}"
BY_RESOURCE = "/{bpName}/{bpVersion}/{artifactName}/{resourceType}/{resourceId}"
TEXT_RESPONSES = text_responses("The resolved template in the requested format")


def _store(request: Request, key: ResolutionKey, result: str) -> JSONResponse:
    record = TemplateRecord(key=key, result=result, id=str(uuid.uuid4()), created_date=utc_now())
    repository.write_with_retry(database(request), repository.replace_template, record)
    return ok(render.template(record))


def _fetch(request: Request, key: ResolutionKey, format_: str) -> Response:
    media_type = media_type_of(format_)
    with database(request).read() as session:
        record = repository.find_template(session, key)
    what = f"resolved template ({key.blueprint_name}, {key.blueprint_version}, {key.artifact_name})"
    if record is None:
        raise resource_not_found(f"No {what} stored for this key")
    return Response(rendered(record.result, media_type, what), media_type=media_type)


_POST = {"response_model": TemplateResolution, "responses": errors(400), "openapi_extra": TEXT_BODY}
_GET = {"response_class": Response, "responses": {**TEXT_RESPONSES, **errors(404, 406)}}


@router.post(
    BY_KEY, summary="Store the resolved template of a resolution key; the body is the result", **_POST
)
def store_by_key(
    request: Request,
    bpName: Name,
    bpVersion: Name,
    artifactName: Name,
    resolutionKey: Name,
    result: Annotated[str, Depends(text_body)],
) -> JSONResponse:
    return _store(
        request, template_key(bpName, bpVersion, artifactName, resolution_key=resolutionKey), result
    )


@router.post(
    BY_RESOURCE, summary="Store the resolved template of a resource; the body is the result", **_POST
)
def store_by_resource(
    request: Request,
    bpName: Name,
    bpVersion: Name,
    artifactName: Name,
    resourceType: Name,
    resourceId: Name,
    result: Annotated[str, Depends(text_body)],
) -> JSONResponse:
    key = template_key(bpName, bpVersion, artifactName, resource_type=resourceType, resource_id=resourceId)
    return _store(request, key, result)


@router.get(BY_KEY, summary="The resolved template of a resolution key", **_GET)
def fetch_by_key(
    request: Request,
    bpName: Name,
    bpVersion: Name,
    artifactName: Name,
    resolutionKey: Name,
    format: Format = "text/plain",
) -> Response:
    return _fetch(
        request, template_key(bpName, bpVersion, artifactName, resolution_key=resolutionKey), format
    )


@router.get(BY_RESOURCE, summary="The resolved template of a resource", **_GET)
def fetch_by_resource(
    request: Request,
    bpName: Name,
    bpVersion: Name,
    artifactName: Name,
    resourceType: Name,
    resourceId: Name,
    format: Format = "text/plain",
) -> Response:
    key = template_key(bpName, bpVersion, artifactName, resource_type=resourceType, resource_id=resourceId)
    return _fetch(request, key, format)
