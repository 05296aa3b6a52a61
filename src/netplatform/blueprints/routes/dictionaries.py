"""``/api/v1/dictionary``: resource dictionaries (what a resource is, where its value comes from)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse, Response
from pydantic import StringConstraints

from ...web.openapi import error_responses, stated_request
from ...web.permissions import requires
from ...web.text import NO_NUL_PATTERN
from ..deps import REPLAYABLE, DictionariesDep
from ..dictionaries import SOURCE_MAPPING
from ..schemas import (
    ResourceDictionary,
    ResourceDictionaryIn,
    SourceMapping,
    dictionary_body,
    dictionary_definition_body,
    json_body,
)
from ..spec import PERMISSIONS, SPEC
from ..tosca import ResourceDefinition
from . import _response_bodies as bodies
from ._common import EMPTY_OK, Name, empty_ok, ok, refuse_nul

router = APIRouter(prefix="/api/v1/dictionary", tags=["resource dictionaries"], dependencies=[REPLAYABLE])
DictionaryName = Annotated[str, StringConstraints(max_length=255)]
MAX_NAMES = 1000
NAMES_BODY = {
    "type": "array",
    "minItems": 1,  # an empty list is a 400 (the reference's text)
    "maxItems": MAX_NAMES,
    "items": {"type": "string", "maxLength": 255, "pattern": NO_NUL_PATTERN},
}


@router.post(
    "",
    summary="Create or replace a resource dictionary",
    response_model=ResourceDictionary,
    responses=error_responses(SPEC, 400),
    openapi_extra={
        **stated_request(body=json_body(dictionary_body())),
        **requires(PERMISSIONS.write("dictionary")),
    },
)
def save_dictionary(body: ResourceDictionaryIn, dictionaries: DictionariesDep) -> JSONResponse:
    if body.definition is not None:
        refuse_nul(*stored_texts(body.definition))
    return ok(bodies.dictionary(dictionaries.save(body)))


@router.post(
    "/definition",
    summary="Create or replace a resource dictionary from a resource definition",
    response_model=ResourceDictionary,
    responses=error_responses(SPEC, 400),
    openapi_extra={
        **stated_request(body=json_body(dictionary_definition_body(in_envelope=False))),
        **requires(PERMISSIONS.write("dictionary")),
    },
)
def save_definition(body: ResourceDefinition, dictionaries: DictionariesDep) -> JSONResponse:
    refuse_nul(*stored_texts(body))
    return ok(bodies.dictionary(dictionaries.save_definition(body)))


def stored_texts(definition: ResourceDefinition) -> list[str | None]:
    """The members of a definition a dictionary keeps in text columns (the rest is kept as JSON)."""
    prop = definition.property
    texts = [definition.name, definition.tags, definition.updated_by, definition.group]
    if prop is not None:
        texts += [prop.type, prop.description, prop.entry_schema.type if prop.entry_schema else None]
    return texts


@router.post(
    "/by-names",
    summary="The dictionaries of the given names (unknown names are skipped)",
    response_model=list[ResourceDictionary],
    responses=error_responses(SPEC, 400),
    openapi_extra={**stated_request(body=json_body(NAMES_BODY)), **requires(PERMISSIONS.read("dictionary"))},
)
def dictionaries_by_names(
    names: Annotated[list[DictionaryName], Body(max_length=MAX_NAMES)], dictionaries: DictionariesDep
) -> JSONResponse:
    refuse_nul(*names)
    return ok([bodies.dictionary(record) for record in dictionaries.named(names)])


@router.get(
    "/source-mapping",
    summary="Dictionary sources and their node types",
    response_model=SourceMapping,
    openapi_extra=requires(PERMISSIONS.read("dictionary")),
)
def source_mapping() -> JSONResponse:
    return ok({"resourceSourceMappings": SOURCE_MAPPING})


@router.get(
    "/resource_dictionary_group",
    summary="Every dictionary group in use",
    response_model=list[str],
    openapi_extra=requires(PERMISSIONS.read("dictionary")),
)
def dictionary_groups(dictionaries: DictionariesDep) -> JSONResponse:
    return ok(dictionaries.groups())


@router.get(
    "/search/{tags}",
    summary="Dictionaries whose tags contain the text",
    response_model=list[ResourceDictionary],
    openapi_extra=requires(PERMISSIONS.read("dictionary")),
)
def dictionaries_with_tags(tags: Name, dictionaries: DictionariesDep) -> JSONResponse:
    return ok([bodies.dictionary(record) for record in dictionaries.with_tag_text(tags)])


@router.get(
    "/{name}",
    summary="One resource dictionary",
    response_model=ResourceDictionary,
    responses=error_responses(SPEC, 404),
    openapi_extra=requires(PERMISSIONS.read("dictionary")),
)
def dictionary_by_name(name: Name, dictionaries: DictionariesDep) -> JSONResponse:
    return ok(bodies.dictionary(dictionaries.by_name(name)))


@router.delete(
    "/{name}",
    summary="Delete a resource dictionary (also when absent)",
    response_class=Response,
    responses=EMPTY_OK,
    openapi_extra=requires(PERMISSIONS.write("dictionary")),
)
def delete_dictionary(name: Name, dictionaries: DictionariesDep) -> Response:
    dictionaries.delete(name)
    return empty_ok()
