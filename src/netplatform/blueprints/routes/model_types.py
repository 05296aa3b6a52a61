"""``/api/v1/model-type``: the stored TOSCA types enrichment draws from."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers, stated_request
from ...web.permissions import requires
from ..deps import REPLAYABLE, ModelTypesDep
from ..schemas import ModelType, ModelTypeIn, json_body, model_type_body
from ..spec import PERMISSIONS, SPEC
from . import _response_bodies as bodies
from ._common import EMPTY, Name

router = APIRouter(prefix="/api/v1/model-type", tags=["model types"], dependencies=[REPLAYABLE])

_SAVE_SUMMARY = "Create or replace a model type"
_SAVE_BODY = stated_request(body=json_body(model_type_body()))


# Registered without and with the trailing slash (the reference accepts both); the bottom
# decorator runs first, so the bare path stays the first route.
@router.post(
    "/",
    operation_id="save_model_type_with_slash",
    summary=_SAVE_SUMMARY,
    responses=answers(SPEC, ModelType, 400),
    openapi_extra={**_SAVE_BODY, **requires(PERMISSIONS.write("model-type"))},
)
@router.post(
    "",
    summary=_SAVE_SUMMARY,
    responses=answers(SPEC, ModelType, 400),
    openapi_extra={**_SAVE_BODY, **requires(PERMISSIONS.write("model-type"))},
)
def save_model_type(body: ModelTypeIn, model_types: ModelTypesDep) -> Response:
    return reply(bodies.model_type(model_types.save(body)))


@router.get(
    "/by-definition/{definitionType}",
    summary="Model types of one definition type",
    responses=answers(SPEC, list[ModelType]),
    openapi_extra=requires(PERMISSIONS.read("model-type")),
)
def model_types_of_kind(definitionType: Name, model_types: ModelTypesDep) -> Response:
    return reply([bodies.model_type(record) for record in model_types.of_kind(definitionType)])


@router.get(
    "/search/{tags}",
    summary="Model types whose tags contain the text",
    responses=answers(SPEC, list[ModelType]),
    openapi_extra=requires(PERMISSIONS.read("model-type")),
)
def model_types_with_tags(tags: Name, model_types: ModelTypesDep) -> Response:
    return reply([bodies.model_type(record) for record in model_types.with_tag_text(tags)])


@router.get(
    "/{name}",
    summary="One model type",
    responses=answers(SPEC, ModelType, 404),
    openapi_extra=requires(PERMISSIONS.read("model-type")),
)
def model_type_by_name(name: Name, model_types: ModelTypesDep) -> Response:
    return reply(bodies.model_type(model_types.by_name(name)))


@router.delete(
    "/{name}",
    summary="Delete a model type (also when absent)",
    response_class=Response,
    responses=answers(SPEC, None, content=EMPTY),
    openapi_extra=requires(PERMISSIONS.write("model-type")),
)
def delete_model_type(name: Name, model_types: ModelTypesDep) -> Response:
    model_types.delete(name)
    return reply(None)
