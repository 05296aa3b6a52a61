"""Model types: the stored TOSCA type definitions enrichment completes archives from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..clock import utc_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest
from .catalog.tosca import TYPE_MODELS, strict_parse
from .errors import resource_not_found
from .names import bounded_text, checked_name
from .repository.model_types import ModelTypeRecord, ModelTypeRepository
from .schemas import ModelTypeIn

DEFINITION_TYPES = tuple(TYPE_MODELS)


def model_type_record(
    *,
    name: str,
    derived_from: str,
    definition_type: str,
    definition: dict[str, Any],
    description: str,
    version: str,
    tags: str | None,
    updated_by: str,
) -> ModelTypeRecord:
    """A checked model type: a known kind whose definition reads strictly as that kind."""
    if definition_type not in TYPE_MODELS:
        raise BadRequest(
            f"Not Valid Model Root Type({definition_type}), It should be [{', '.join(DEFINITION_TYPES)}]"
        )
    strict_parse(TYPE_MODELS[definition_type], definition, f"definition of model type ({name})")
    return ModelTypeRecord(
        name=checked_name("modelName", name),
        derived_from=checked_name("derivedFrom", derived_from),
        definition_type=definition_type,
        definition=definition,
        description=description,
        version=checked_name("version", version),
        tags=bounded_text("tags", tags) if tags is not None else None,
        creation_date=utc_now(),
        updated_by=checked_name("updatedBy", updated_by),
    )


def starter_model_type(name: str, definition_type: str, definition: dict[str, Any]) -> ModelTypeRecord:
    """A starter-catalog type: identity and description come from the definition file itself."""
    derived_from = str(definition.get("derived_from", ""))
    return model_type_record(
        name=name,
        derived_from=derived_from,
        definition_type=definition_type,
        definition=definition,
        description=str(definition.get("description", "")),
        version=str(definition.get("version", "1.0.0")),
        tags=f"{name},{derived_from},{definition_type}",
        updated_by="System",
    )


class ModelTypes:
    """Model types stored, found and deleted, each call one transaction."""

    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, ModelTypeRepository)

    def save(self, body: ModelTypeIn) -> ModelTypeRecord:
        """Create or replace the model type of ``body.modelName``."""
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
        self.save_all([record])
        return record

    def save_all(self, records: Sequence[ModelTypeRecord]) -> None:
        """Create or replace every record, in one transaction."""

        def work(types: ModelTypeRepository) -> None:
            for record in records:
                types.save(record)

        self.unit.write(work)

    def by_name(self, name: str) -> ModelTypeRecord:
        record = self.unit.read(lambda types: types.find(name))
        if record is None:
            raise resource_not_found(f"couldn't get modelType({name})")
        return record

    def of_kind(self, definition_type: str) -> list[ModelTypeRecord]:
        return self.unit.read(lambda types: types.of_kind(definition_type))

    def with_tag_text(self, text: str) -> list[ModelTypeRecord]:
        return self.unit.read(lambda types: types.with_tag_text(text))

    def delete(self, name: str) -> None:
        """Delete the model type (nothing happens when there is none)."""
        self.unit.write(lambda types: types.delete(name), retry=False)
