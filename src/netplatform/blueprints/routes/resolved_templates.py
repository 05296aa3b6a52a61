"""``/api/v1/template``: resolved (meshed) templates, keyed by resolution key or by resource."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import ResolvedTemplatesDep
from ..formats import FORMAT_WORDS
from ..resolutions import template_key, template_query
from ..schemas import TemplateResolution
from ..spec import PERMISSIONS, SPEC
from . import _response_bodies as bodies
from ._common import TEXT_BODY, TEXT_CONTENT, Name, StoredText, any_case

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
Query255 = Annotated[str, Query(max_length=255)]
OptionalQuery = Annotated[str | None, Query(max_length=255)]
FETCHED = answers(
    SPEC, None, 404, 406, description="The resolved template in the requested format", content=TEXT_CONTENT
)
FETCHED_AS_STORED = answers(
    SPEC,
    None,
    404,
    description="The resolved template as stored, in the media type asked for",
    content=TEXT_CONTENT,
)


@router.get(
    "",
    summary="A resolved template by query (the reference's form): the stored text itself",
    response_class=Response,
    responses=FETCHED_AS_STORED,
    openapi_extra=requires(PERMISSIONS.read("template")),
)
def fetch_by_query(
    templates: ResolvedTemplatesDep,
    bpName: Query255,
    bpVersion: Query255,
    artifactName: Query255,
    resolutionKey: OptionalQuery = None,
    resourceType: OptionalQuery = None,
    resourceId: OptionalQuery = None,
    occurrence: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    format: Format = "text/plain",
) -> Response:
    key = template_query(bpName, bpVersion, artifactName, resolutionKey, resourceType, resourceId, occurrence)
    fetched = templates.as_stored(key, format)
    return reply(fetched.text, media_type=fetched.media_type)


@router.post(
    BY_KEY,
    summary="Store the resolved template of a resolution key; the body is the result",
    responses=answers(SPEC, TemplateResolution, 400),
    openapi_extra={**TEXT_BODY, **requires(PERMISSIONS.write("template"))},
)
def store_by_key(
    templates: ResolvedTemplatesDep,
    bpName: Name,
    bpVersion: Name,
    artifactName: Name,
    resolutionKey: Name,
    result: StoredText,
) -> Response:
    key = template_key(bpName, bpVersion, artifactName, resolution_key=resolutionKey)
    return reply(bodies.template(templates.store(key, result)))


@router.post(
    BY_RESOURCE,
    summary="Store the resolved template of a resource; the body is the result",
    responses=answers(SPEC, TemplateResolution, 400),
    openapi_extra={**TEXT_BODY, **requires(PERMISSIONS.write("template"))},
)
def store_by_resource(
    templates: ResolvedTemplatesDep,
    bpName: Name,
    bpVersion: Name,
    artifactName: Name,
    resourceType: Name,
    resourceId: Name,
    result: StoredText,
) -> Response:
    key = template_key(bpName, bpVersion, artifactName, resource_type=resourceType, resource_id=resourceId)
    return reply(bodies.template(templates.store(key, result)))


@router.get(
    BY_KEY,
    summary="The resolved template of a resolution key",
    response_class=Response,
    responses=FETCHED,
    openapi_extra=requires(PERMISSIONS.read("template")),
)
def fetch_by_key(
    templates: ResolvedTemplatesDep,
    bpName: Name,
    bpVersion: Name,
    artifactName: Name,
    resolutionKey: Name,
    format: Format = "text/plain",
) -> Response:
    key = template_key(bpName, bpVersion, artifactName, resolution_key=resolutionKey)
    fetched = templates.in_format(key, format)
    return reply(fetched.text, media_type=fetched.media_type)


@router.get(
    BY_RESOURCE,
    summary="The resolved template of a resource",
    response_class=Response,
    responses=FETCHED,
    openapi_extra=requires(PERMISSIONS.read("template")),
)
def fetch_by_resource(
    templates: ResolvedTemplatesDep,
    bpName: Name,
    bpVersion: Name,
    artifactName: Name,
    resourceType: Name,
    resourceId: Name,
    format: Format = "text/plain",
) -> Response:
    key = template_key(bpName, bpVersion, artifactName, resource_type=resourceType, resource_id=resourceId)
    fetched = templates.in_format(key, format)
    return reply(fetched.text, media_type=fetched.media_type)
