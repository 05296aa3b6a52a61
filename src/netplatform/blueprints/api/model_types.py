"""``/api/v1/model-type``: the stored TOSCA types enrichment draws from."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from .. import repository
from ..errors import resource_not_found
from ..modeltypes import model_type_record
from ..schemas import ModelType, ModelTypeIn
from . import _render as render
from ._http import EMPTY_OK, Name, database, empty_ok, errors, ok

router = APIRouter(prefix="/api/v1/model-type", tags=["model types"])


def save_model_type(body: ModelTypeIn, request: Request) -> JSONResponse:
    record = model_type_record(
        name=body.modelName,
        derived_from=body.derivedFrom,
        definition_type=body.definitionType,
        definition=body.definition,
        description=body.description,
        version=body.version,
        tags=body.tags,
        updated_by=body.updatedBy,
    )
    repository.write_with_retry(database(request), repository.save_model_type, record)
    return ok(render.model_type(record))


_SAVE = {"summary": "Create or replace a model type", "response_model": ModelType, "responses": errors(400)}
router.post("", **_SAVE)(save_model_type)
router.post("/", operation_id="save_model_type_with_slash", **_SAVE)(save_model_type)


@router.get(
    "/by-definition/{definitionType}",
    summary="Model types of one definition type",
    response_model=list[ModelType],
)
def model_types_of_kind(definitionType: Name, request: Request) -> JSONResponse:
    with database(request).read() as session:
        return ok([render.model_type(r) for r in repository.model_types_of_kind(session, definitionType)])


@router.get(
    "/search/{tags}", summary="Model types whose tags contain the text", response_model=list[ModelType]
)
def model_types_with_tags(tags: Name, request: Request) -> JSONResponse:
    with database(request).read() as session:
        return ok([render.model_type(r) for r in repository.model_types_with_tag_text(session, tags)])


@router.get("/{name}", summary="One model type", response_model=ModelType, responses=errors(404))
def model_type_by_name(name: Name, request: Request) -> JSONResponse:
    with database(request).read() as session:
        record = repository.find_model_type(session, name)
    if record is None:
        raise resource_not_found(f"couldn't get modelType({name})")
    return ok(render.model_type(record))


@router.delete(
    "/{name}", summary="Delete a model type (also when absent)", response_class=Response, responses=EMPTY_OK
)
def delete_model_type(name: Name, request: Request) -> Response:
    with database(request).write() as session:
        repository.delete_model_type(session, name)
    return empty_ok()
