"""Resource dictionaries: what a resource is (its property) and where its value comes from (sources).

A dictionary record is always derived from its ResourceDefinition, so the two can never
disagree: tags, group, description, data type and entry schema are copied from the definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..clock import utc_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest
from .catalog.tosca import ResourceDefinition, lenient_parse
from .errors import resource_not_found
from .names import bounded_text, checked_name
from .repository.dictionaries import DictionaryRecord, DictionaryRepository
from .schemas import ResourceDictionaryIn


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
    tags = definition.tags
    if not tags or not tags.strip():
        raise BadRequest(f"definition.tags is missing for resource dictionary ({name})")
    definition = definition.model_copy(update={"updated_by": updated_by, "name": definition.name or name})
    return DictionaryRecord(
        name=name,
        data_type=prop.type,
        entry_schema=prop.entry_schema.type if prop.entry_schema else None,
        group=checked_name("resource dictionary group", definition.group),
        definition=definition.dump(),
        description=prop.description,
        tags=bounded_text("resource dictionary tags", tags),
        creation_date=utc_now(),
        updated_by=bounded_text("updatedBy", updated_by, 255),
    )


def dictionary_from_definition(definition: ResourceDefinition) -> DictionaryRecord:
    """``POST /dictionary/definition``: blank tags become ``"<name>, <updated-by>"``."""
    if not definition.tags or not definition.tags.strip():
        definition = definition.model_copy(update={"tags": f"{definition.name}, {definition.updated_by}"})
    return dictionary_record(definition.name, definition.updated_by, definition)


class Dictionaries:
    """Resource dictionaries stored, found and deleted, each call one transaction."""

    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, DictionaryRepository)

    def save(self, body: ResourceDictionaryIn) -> DictionaryRecord:
        """``POST /dictionary``: create or replace, built from the body's definition."""
        if body.definition is None:
            raise BadRequest(f"definition is missing for resource dictionary ({body.name})")
        record = dictionary_record(body.name, body.updatedBy, body.definition)
        self.save_all([record])
        return record

    def save_definition(self, definition: ResourceDefinition) -> DictionaryRecord:
        """``POST /dictionary/definition``: create or replace the dictionary the definition names."""
        record = dictionary_from_definition(definition)
        self.save_all([record])
        return record

    def save_all(self, records: Sequence[DictionaryRecord]) -> None:
        """Create or replace every record, in one transaction."""

        def work(dictionaries: DictionaryRepository) -> None:
            for record in records:
                dictionaries.save(record)

        self.unit.write(work)

    def by_name(self, name: str) -> DictionaryRecord:
        record = self.unit.read(lambda dictionaries: dictionaries.find(name))
        if record is None:
            raise resource_not_found(f"couldn't get resource dictionary for name ({name})")
        return record

    def named(self, names: Sequence[str]) -> list[DictionaryRecord]:
        """The dictionaries of those names that exist; an empty list of names is a 400."""
        if not names:
            raise BadRequest("No Search Information provide")
        return self.unit.read(lambda dictionaries: dictionaries.named(names))

    def with_tag_text(self, text: str) -> list[DictionaryRecord]:
        return self.unit.read(lambda dictionaries: dictionaries.with_tag_text(text))

    def groups(self) -> list[str]:
        """Every dictionary group in use."""
        return self.unit.read(lambda dictionaries: dictionaries.groups())

    def delete(self, name: str) -> None:
        """Delete the dictionary (nothing happens when there is none)."""
        self.unit.write(lambda dictionaries: dictionaries.delete(name), retry=False)

    def definition(self, name: str) -> ResourceDefinition | None:
        """The stored resource definition of ``name`` (None when there is none): resolution's
        fallback for a dictionary its CBA does not carry."""
        record = self.unit.read(lambda dictionaries: dictionaries.find(name))
        return None if record is None else parse_definition(record.definition)
