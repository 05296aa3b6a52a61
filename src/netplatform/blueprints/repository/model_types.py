"""Model types: the stored TOSCA type definitions, keyed by name."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, delete, select
from sqlalchemy.orm import Session

from ..tables import model_types as _types
from ._sql import contains, upsert


@dataclass(frozen=True)
class ModelTypeRecord:
    name: str
    derived_from: str
    definition_type: str
    definition: dict[str, Any]
    description: str
    version: str
    tags: str | None
    creation_date: datetime
    updated_by: str


def _type_record(row: Row[Any]) -> ModelTypeRecord:
    values = row._mapping
    return ModelTypeRecord(
        name=values["name"],
        derived_from=values["derived_from"],
        definition_type=values["definition_type"],
        definition=json.loads(values["definition"]),
        description=values["description"],
        version=values["version"],
        tags=values["tags"],
        creation_date=values["creation_date"],
        updated_by=values["updated_by"],
    )


class ModelTypeRepository:
    """The model types in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def _where(self, *conditions: ColumnElement[bool]) -> list[ModelTypeRecord]:
        query = select(_types).where(*conditions).order_by(_types.c.name)
        return [_type_record(row) for row in self.session.execute(query)]

    def save(self, record: ModelTypeRecord) -> None:
        upsert(
            self.session,
            _types,
            {"name": record.name},
            {
                "derived_from": record.derived_from,
                "definition_type": record.definition_type,
                "definition": json.dumps(record.definition),
                "description": record.description,
                "version": record.version,
                "tags": record.tags,
                "tags_lower": record.tags.lower() if record.tags is not None else None,
                "creation_date": record.creation_date,
                "updated_by": record.updated_by,
            },
        )

    def find(self, name: str) -> ModelTypeRecord | None:
        found = self._where(_types.c.name == name)
        return found[0] if found else None

    def of_kind(self, definition_type: str) -> list[ModelTypeRecord]:
        return self._where(_types.c.definition_type == definition_type)

    def with_tag_text(self, text: str) -> list[ModelTypeRecord]:
        return self._where(contains(_types.c.tags_lower, text))

    def delete(self, name: str) -> None:
        self.session.execute(delete(_types).where(_types.c.name == name))
