"""``/api/v1/dictionary``: resource dictionaries (what a resource is, where its value comes from)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body
from fastapi.responses import Response
from pydantic import StringConstraints

from ...web.answers import reply
from ...web.openapi import answers, stated_request
from ...web.permissions import requires
from ...web.text import NO_NUL_PATTERN
from ..catalog.enrich import SOURCE_MAPPING
from ..catalog.tosca import ResourceDefinition
from ..deps import REPLAYABLE, DictionariesDep
from ..schemas import (
    ResourceDictionary,
    ResourceDictionaryIn,
    SourceMapping,
    dictionary_body,
    dictionary_definition_body,
    json_body,
)
from ..spec import PERMISSIONS, SPEC
from . import _response_bodies as bodies
from ._common import EMPTY, Name, refuse_nul

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
    responses=answers(SPEC, ResourceDictionary, 400),
    openapi_extra={
        **stated_request(body=json_body(dictionary_body())),
        **requires(PERMISSIONS.write("dictionary")),
    },
)
def save_dictionary(body: ResourceDictionaryIn, dictionaries: DictionariesDep) -> Response:
    if body.definition is not None:
        refuse_nul(*stored_texts(body.definition))
    return reply(bodies.dictionary(dictionaries.save(body)))


@router.post(
    "/definition",
    summary="Create or replace a resource dictionary from a resource definition",
    responses=answers(SPEC, ResourceDictionary, 400),
    openapi_extra={
        **stated_request(body=json_body(dictionary_definition_body(in_envelope=False))),
        **requires(PERMISSIONS.write("dictionary")),
    },
)
def save_definition(body: ResourceDefinition, dictionaries: DictionariesDep) -> Response:
    refuse_nul(*stored_texts(body))
    return reply(bodies.dictionary(dictionaries.save_definition(body)))


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
    responses=answers(SPEC, list[ResourceDictionary], 400),
    openapi_extra={**stated_request(body=json_body(NAMES_BODY)), **requires(PERMISSIONS.read("dictionary"))},
)
def dictionaries_by_names(
    names: Annotated[list[DictionaryName], Body(max_length=MAX_NAMES)], dictionaries: DictionariesDep
) -> Response:
    refuse_nul(*names)
    return reply([bodies.dictionary(record) for record in dictionaries.named(names)])


@router.get(
    "/source-mapping",
    summary="Dictionary sources and their node types",
    responses=answers(SPEC, SourceMapping),
    openapi_extra=requires(PERMISSIONS.read("dictionary")),
)
def source_mapping() -> Response:
    return reply({"resourceSourceMappings": SOURCE_MAPPING})


@router.get(
    "/resource_dictionary_group",
    summary="Every dictionary group in use",
    responses=answers(SPEC, list[str]),
    openapi_extra=requires(PERMISSIONS.read("dictionary")),
)
def dictionary_groups(dictionaries: DictionariesDep) -> Response:
    return reply(dictionaries.groups())


@router.get(
    "/search/{tags}",
    summary="Dictionaries whose tags contain the text",
    responses=answers(SPEC, list[ResourceDictionary]),
    openapi_extra=requires(PERMISSIONS.read("dictionary")),
)
def dictionaries_with_tags(tags: Name, dictionaries: DictionariesDep) -> Response:
    return reply([bodies.dictionary(record) for record in dictionaries.with_tag_text(tags)])


@router.get(
    "/{name}",
    summary="One resource dictionary",
    responses=answers(SPEC, ResourceDictionary, 404),
    openapi_extra=requires(PERMISSIONS.read("dictionary")),
)
def dictionary_by_name(name: Name, dictionaries: DictionariesDep) -> Response:
    return reply(bodies.dictionary(dictionaries.by_name(name)))


@router.delete(
    "/{name}",
    summary="Delete a resource dictionary (also when absent)",
    response_class=Response,
    responses=answers(SPEC, None, content=EMPTY),
    openapi_extra=requires(PERMISSIONS.write("dictionary")),
)
def delete_dictionary(name: Name, dictionaries: DictionariesDep) -> Response:
    dictionaries.delete(name)
    return reply(None)
