"""Resource dictionaries: what a resource is (its property) and where its value comes from (sources).

A dictionary record is always derived from its ResourceDefinition, so the two can never
disagree: tags, group, description, data type and entry schema are copied from the definition.
"""

from __future__ import annotations

from typing import Any

from ..clock import utc_now
from ..web.errors import BadRequest
from .names import bounded_text, checked_name
from .repository import DictionaryRecord
from .tosca import ResourceDefinition, lenient_parse

SOURCE_MAPPING: dict[str, str] = {
    "processor-db": "source-db",
    "input": "source-input",
    "default": "source-default",
    "sdnc": "source-rest",
    "aai-data": "source-rest",
    "capability": "source-capability",
    "rest": "source-rest",
    "vault-data": "source-rest",
    "script": "source-capability",
}
"""Dictionary source name -> the node type that describes that source."""


def parse_definition(data: Any) -> ResourceDefinition:
    return lenient_parse(ResourceDefinition, data, "definition")


def dictionary_record(
    name: str | None, updated_by: str | None, definition: ResourceDefinition
) -> DictionaryRecord:
    """The stored record of a dictionary; refuses a definition without the fields it is built from."""
    name = checked_name("resource dictionary name", name)
    if not updated_by or not updated_by.strip():
        raise BadRequest(f"updatedBy is missing for resource dictionary ({name})")
    prop = definition.property
    if prop is None or not prop.type:
        raise BadRequest(f"definition.property.type is missing for resource dictionary ({name})")
    if not prop.description:
        raise BadRequest(f"definition.property.description is missing for resource dictionary ({name})")
    if not definition.tags or not definition.tags.strip():
        raise BadRequest(f"definition.tags is missing for resource dictionary ({name})")
    definition = definition.model_copy(update={"updated_by": updated_by, "name": definition.name or name})
    return DictionaryRecord(
        name=name,
        data_type=prop.type,
        entry_schema=prop.entry_schema.type if prop.entry_schema else None,
        group=checked_name("resource dictionary group", definition.group),
        definition=definition.dump(),
        description=prop.description,
        tags=bounded_text("resource dictionary tags", definition.tags),
        creation_date=utc_now(),
        updated_by=bounded_text("updatedBy", updated_by, 255),
    )


def dictionary_from_definition(definition: ResourceDefinition) -> DictionaryRecord:
    """``POST /dictionary/definition``: blank tags become ``"<name>, <updated-by>"``."""
    if not definition.tags or not definition.tags.strip():
        definition = definition.model_copy(update={"tags": f"{definition.name}, {definition.updated_by}"})
    return dictionary_record(definition.name, definition.updated_by, definition)
