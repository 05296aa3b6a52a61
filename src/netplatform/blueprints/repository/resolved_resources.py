"""Resolved resource values: what resolution found for each assignment, by key and occurrence."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, delete, select
from sqlalchemy.orm import Session

from ..tables import HAS_RESOURCE
from ..tables import resources as _resources
from ._sql import Replacing, rows_changed
from .resolution_keys import KEY_COLUMNS, ResolutionKey, bound_conditions, without_occurrence


@dataclass(frozen=True)
class ResourceRecord:
    key: ResolutionKey
    name: str
    value: str
    status: str
    dictionary_name: str | None
    dictionary_source: str | None
    dictionary_version: int | None
    id: str
    created_date: datetime


@dataclass(frozen=True)
class ResourceQuery:
    """Which resolved values: by blueprint plus (artifact and resolution key) or (resource type and id)."""

    blueprint_name: str
    blueprint_version: str
    artifact_name: str | None = None
    resolution_key: str | None = None
    resource_type: str | None = None
    resource_id: str | None = None
    name: str | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        conditions = [
            _resources.c.blueprint_name == self.blueprint_name,
            _resources.c.blueprint_version == self.blueprint_version,
        ]
        optional = {
            "artifact_name": self.artifact_name,
            "resolution_key": self.resolution_key,
            "resource_type": self.resource_type,
            "resource_id": self.resource_id,
            "name": self.name,
        }
        conditions.extend(
            _resources.c[column] == value for column, value in optional.items() if value is not None
        )
        if self.resource_type:  # implied; said so that the partial index by resource is used
            conditions.append(HAS_RESOURCE)
        return conditions


def _resource_record(row: Row[Any]) -> ResourceRecord:
    values = row._mapping
    return ResourceRecord(
        key=ResolutionKey(
            blueprint_name=values["blueprint_name"],
            blueprint_version=values["blueprint_version"],
            artifact_name=values["artifact_name"],
            resolution_key=values["resolution_key"],
            resource_type=values["resource_type"],
            resource_id=values["resource_id"],
            occurrence=values["occurrence"],
        ),
        name=values["name"],
        value=values["value"],
        status=values["status"],
        dictionary_name=values["dictionary_name"],
        dictionary_source=values["dictionary_source"],
        dictionary_version=values["dictionary_version"],
        id=values["id"],
        created_date=values["created_date"],
    )


_REPLACE = Replacing(_resources, (*KEY_COLUMNS, "name"))
_OF_KEY = select(_resources).where(*bound_conditions(_resources))


def _resource_row(record: ResourceRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "name": record.name,
        "value": record.value,
        "status": record.status,
        "dictionary_name": record.dictionary_name,
        "dictionary_source": record.dictionary_source,
        "dictionary_version": record.dictionary_version,
        "created_date": record.created_date,
        **record.key.columns(),
    }


class ResolvedResourceRepository:
    """The resolved resource values in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def store(self, records: Iterable[ResourceRecord]) -> None:
        """Each value replaces the one of the same name under the same key and occurrence (of several
        of one name in ``records``, the last): one INSERT of every row, each replacing the row of
        its name where there is one, not three statements per value."""
        latest: dict[tuple[ResolutionKey, str], ResourceRecord] = {}
        for record in records:
            latest.pop((record.key, record.name), None)
            latest[(record.key, record.name)] = record
        if latest:
            _REPLACE.run(self.session, [_resource_row(record) for record in latest.values()])

    def find(self, query: ResourceQuery) -> list[ResourceRecord]:
        ordered = (
            select(_resources)
            .where(*query.conditions())
            .order_by(_resources.c.occurrence, _resources.c.created_date, _resources.c.name)
        )
        return [_resource_record(row) for row in self.session.execute(ordered)]

    def delete(self, query: ResourceQuery) -> int:
        """Delete the matching values; how many there were."""
        return rows_changed(self.session.execute(delete(_resources).where(*query.conditions())))

    def of_key(self, key: ResolutionKey) -> list[ResourceRecord]:
        """Every value stored under ``key`` and its occurrence."""
        return [_resource_record(row) for row in self.session.execute(_OF_KEY, key.params())]

    def delete_of_key(self, key: ResolutionKey, occurrences: Sequence[int] | None) -> int:
        """Delete the values of ``key`` (any occurrence, or those listed); how many there were."""
        conditions = without_occurrence(key, _resources)
        if occurrences is not None:
            conditions.append(_resources.c.occurrence.in_(occurrences))
        return rows_changed(self.session.execute(delete(_resources).where(*conditions)))
