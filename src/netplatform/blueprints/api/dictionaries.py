"""``/api/v1/dictionary``: resource dictionaries (what a resource is, where its value comes from)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse, Response
from pydantic import StringConstraints

from ...web.errors import BadRequest
from .. import repository
from ..dictionaries import SOURCE_MAPPING, dictionary_from_definition, dictionary_record
from ..errors import resource_not_found
from ..repository import DictionaryRecord
from ..schemas import ResourceDictionary, ResourceDictionaryIn, SourceMapping
from ..tosca import ResourceDefinition
from . import _render as render
from ._http import EMPTY_OK, Name, database, empty_ok, errors, ok

router = APIRouter(prefix="/api/v1/dictionary", tags=["resource dictionaries"])
DictionaryName = Annotated[str, StringConstraints(max_length=255)]
MAX_NAMES = 1000


def _save(request: Request, record: DictionaryRecord) -> JSONResponse:
    repository.write_with_retry(database(request), repository.save_dictionary, record)
    return ok(render.dictionary(record))


@router.post(
    "",
    summary="Create or replace a resource dictionary",
    response_model=ResourceDictionary,
    responses=errors(400),
)
def save_dictionary(body: ResourceDictionaryIn, request: Request) -> JSONResponse:
    if body.definition is None:
        raise BadRequest(f"definition is missing for resource dictionary ({body.name})")
    return _save(request, dictionary_record(body.name, body.updatedBy, body.definition))


@router.post(
    "/definition",
    summary="Create or replace a resource dictionary from a resource definition",
    response_model=ResourceDictionary,
    responses=errors(400),
)
def save_definition(body: ResourceDefinition, request: Request) -> JSONResponse:
    return _save(request, dictionary_from_definition(body))


@router.post(
    "/by-names",
    summary="The dictionaries of the given names (unknown names are skipped)",
    response_model=list[ResourceDictionary],
    responses=errors(400),
)
def dictionaries_by_names(
    names: Annotated[list[DictionaryName], Body(max_length=MAX_NAMES)], request: Request
) -> JSONResponse:
    if not names:
        raise BadRequest("No Search Information provide")
    with database(request).read() as session:
        return ok([render.dictionary(r) for r in repository.dictionaries_named(session, names)])


@router.get(
    "/source-mapping", summary="Dictionary sources and their node types", response_model=SourceMapping
)
def source_mapping() -> JSONResponse:
    return ok({"resourceSourceMappings": SOURCE_MAPPING})


@router.get("/resource_dictionary_group", summary="Every dictionary group in use", response_model=list[str])
def dictionary_groups(request: Request) -> JSONResponse:
    with database(request).read() as session:
        return ok(repository.dictionary_groups(session))


@router.get(
    "/search/{tags}",
    summary="Dictionaries whose tags contain the text",
    response_model=list[ResourceDictionary],
)
def dictionaries_with_tags(tags: Name, request: Request) -> JSONResponse:
    with database(request).read() as session:
        return ok([render.dictionary(r) for r in repository.dictionaries_with_tag_text(session, tags)])


@router.get(
    "/{name}", summary="One resource dictionary", response_model=ResourceDictionary, responses=errors(404)
)
def dictionary_by_name(name: Name, request: Request) -> JSONResponse:
    with database(request).read() as session:
        record = repository.find_dictionary(session, name)
    if record is None:
        raise resource_not_found(f"couldn't get resource dictionary for name ({name})")
    return ok(render.dictionary(record))


@router.delete(
    "/{name}",
    summary="Delete a resource dictionary (also when absent)",
    response_class=Response,
    responses=EMPTY_OK,
)
def delete_dictionary(name: Name, request: Request) -> Response:
    with database(request).write() as session:
        repository.delete_dictionary(session, name)
    return empty_ok()
