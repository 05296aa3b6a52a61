"""Resolved (meshed) templates: one result per resolution key."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ..tables import resources as _resources
from ..tables import templates as _templates
from ._sql import Replacing, rows_changed
from .resolution_keys import KEY_COLUMNS, ResolutionKey, without_occurrence


@dataclass(frozen=True)
class TemplateRecord:
    key: ResolutionKey
    result: str
    id: str
    created_date: datetime


_REPLACE = Replacing(_templates, KEY_COLUMNS)


class ResolvedTemplateRepository:
    """The resolved templates in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def replace(self, record: TemplateRecord) -> None:
        """The template of the record's key replaced (or stored): one statement."""
        row = {"id": record.id, "result": record.result, "created_date": record.created_date}
        _REPLACE.run(self.session, {**row, **record.key.columns()})

    def find(self, key: ResolutionKey) -> TemplateRecord | None:
        row = self.session.execute(select(_templates).where(*key.conditions(_templates))).first()
        if row is None:
            return None
        values = row._mapping
        return TemplateRecord(
            key=key, result=values["result"], id=values["id"], created_date=values["created_date"]
        )

    def delete(self, key: ResolutionKey, occurrences: Sequence[int] | None) -> int:
        """Delete the templates of ``key`` (any occurrence, or those listed); how many there were."""
        conditions = without_occurrence(key, _templates)
        if occurrences is not None:
            conditions.append(_templates.c.occurrence.in_(occurrences))
        return rows_changed(self.session.execute(delete(_templates).where(*conditions)))

    def occurrences(self, key: ResolutionKey) -> list[int]:
        """The occurrences stored for ``key`` (templates and resources), highest first."""
        found: set[int] = set()
        for table in (_templates, _resources):
            statement = select(table.c.occurrence).where(*without_occurrence(key, table)).distinct()
            found.update(self.session.execute(statement).scalars())
        return sorted(found, reverse=True)
