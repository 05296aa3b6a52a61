"""Resource dictionaries: each stored with the resource definition it is derived from."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, delete, select
from sqlalchemy.orm import Session

from ..tables import dictionaries as _dictionaries
from ._sql import contains, upsert


@dataclass(frozen=True)
class DictionaryRecord:
    name: str
    data_type: str
    entry_schema: str | None
    group: str
    definition: dict[str, Any]
    description: str
    tags: str
    creation_date: datetime
    updated_by: str


def _dictionary_record(row: Row[Any]) -> DictionaryRecord:
    values = row._mapping
    return DictionaryRecord(
        name=values["name"],
        data_type=values["data_type"],
        entry_schema=values["entry_schema"],
        group=values["dictionary_group"],
        definition=json.loads(values["definition"]),
        description=values["description"],
        tags=values["tags"],
        creation_date=values["creation_date"],
        updated_by=values["updated_by"],
    )


class DictionaryRepository:
    """The resource dictionaries in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def _where(self, *conditions: ColumnElement[bool]) -> list[DictionaryRecord]:
        query = select(_dictionaries).where(*conditions).order_by(_dictionaries.c.name)
        return [_dictionary_record(row) for row in self.session.execute(query)]

    def save(self, record: DictionaryRecord) -> None:
        upsert(
            self.session,
            _dictionaries,
            {"name": record.name},
            {
                "data_type": record.data_type,
                "entry_schema": record.entry_schema,
                "dictionary_group": record.group,
                "definition": json.dumps(record.definition),
                "description": record.description,
                "tags": record.tags,
                "tags_lower": record.tags.lower(),
                "creation_date": record.creation_date,
                "updated_by": record.updated_by,
            },
        )

    def find(self, name: str) -> DictionaryRecord | None:
        found = self._where(_dictionaries.c.name == name)
        return found[0] if found else None

    def named(self, names: Sequence[str]) -> list[DictionaryRecord]:
        return self._where(_dictionaries.c.name.in_(list(names)))

    def with_tag_text(self, text: str) -> list[DictionaryRecord]:
        return self._where(contains(_dictionaries.c.tags_lower, text))

    def groups(self) -> list[str]:
        column = _dictionaries.c.dictionary_group
        return list(self.session.execute(select(column).distinct().order_by(column)).scalars())

    def delete(self, name: str) -> None:
        self.session.execute(delete(_dictionaries).where(_dictionaries.c.name == name))
