"""Blueprint models: the meta-data row of each stored archive, and its searchable keywords."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, Select, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from ..keywords import keywords_of, normalized_keyword
from ..tables import model_keywords as _keywords
from ..tables import models as _models
from ._sql import contains


@dataclass(frozen=True)
class ModelRecord:
    id: str
    artifact_name: str
    artifact_version: str
    artifact_type: str
    artifact_description: str
    published: str
    updated_by: str
    tags: str
    created_date: datetime
    blob_name: str
    blob_size: int
    workflows: list[str]


MODEL_SORT_COLUMNS = {
    "DATE": (_models.c.created_date, _models.c.id),
    "NAME": (_models.c.artifact_name, _models.c.artifact_version),
    "VERSION": (_models.c.artifact_version, _models.c.id),
}
"""Each sort is a total order that an index serves (ties broken by a unique column)."""


def _model_record(row: Row[Any]) -> ModelRecord:
    values = row._mapping
    return ModelRecord(
        id=values["id"],
        artifact_name=values["artifact_name"],
        artifact_version=values["artifact_version"],
        artifact_type=values["artifact_type"],
        artifact_description=values["artifact_description"],
        published=values["published"],
        updated_by=values["updated_by"],
        tags=values["tags"],
        created_date=values["created_date"],
        blob_name=values["blob_name"],
        blob_size=values["blob_size"],
        workflows=json.loads(values["workflows"]),
    )


def _select_models() -> Select[Any]:
    return select(*[column for column in _models.c if column.name != "tags_lower"])


_BY_NAME = (
    _select_models()
    .where(_models.c.artifact_name == bindparam("name"), _models.c.artifact_version == bindparam("version"))
    .order_by(_models.c.created_date, _models.c.id)
)
"""Built once (every execution looks its model up): compiled once, not rebuilt per call."""


def _has_keyword(keyword: str) -> ColumnElement[bool]:
    matching = select(_keywords.c.model_id).where(_keywords.c.keyword == normalized_keyword(keyword))
    return _models.c.id.in_(matching)


def _model_values(record: ModelRecord) -> dict[str, Any]:
    """The columns of a model row other than its (name, version) key."""
    return {
        "id": record.id,
        "artifact_type": record.artifact_type,
        "artifact_description": record.artifact_description,
        "published": record.published,
        "updated_by": record.updated_by,
        "tags": record.tags,
        "tags_lower": record.tags.lower(),
        "created_date": record.created_date,
        "blob_name": record.blob_name,
        "blob_size": record.blob_size,
        "workflows": json.dumps(record.workflows),
    }


class BlueprintModelRepository:
    """The blueprint models and their keywords in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def _where(self, *conditions: ColumnElement[bool]) -> list[ModelRecord]:
        query = _select_models().where(*conditions).order_by(_models.c.created_date, _models.c.id)
        return [_model_record(row) for row in self.session.execute(query)]

    def find(self, model_id: str) -> ModelRecord | None:
        found = self._where(_models.c.id == model_id)
        return found[0] if found else None

    def find_by_name(self, name: str, version: str) -> ModelRecord | None:
        row = self.session.execute(_BY_NAME, {"name": name, "version": version}).first()
        return None if row is None else _model_record(row)

    def all(self) -> list[ModelRecord]:
        return self._where()

    def with_keyword(self, keyword: str) -> list[ModelRecord]:
        return self._where(_has_keyword(keyword))

    def with_tag_text(self, text: str) -> list[ModelRecord]:
        return self._where(contains(_models.c.tags_lower, text))

    def page(
        self,
        *,
        keyword: str | None,
        published: str | None,
        sort: str,
        descending: bool,
        limit: int,
        page: int,
    ) -> tuple[list[ModelRecord], int]:
        """One page of models (and the total count), ordered by an indexed column then id."""
        conditions: list[ColumnElement[bool]] = []
        if keyword is not None:
            conditions.append(_has_keyword(keyword))
        if published is not None:
            conditions.append(_models.c.published == published)
        counted = select(func.count()).select_from(_models).where(*conditions)
        total = self.session.execute(counted).scalar_one()
        columns = MODEL_SORT_COLUMNS[sort]
        order = [column.desc() if descending else column.asc() for column in columns]
        query = _select_models().where(*conditions).order_by(*order).limit(limit).offset(page * limit)
        return [_model_record(row) for row in self.session.execute(query)], int(total)

    def replace(self, record: ModelRecord) -> str | None:
        """Store ``record``, replacing the model of the same name and version; the old blob's name.

        A replaced model's row is updated in place (new id included) rather than deleted and
        inserted again, so a concurrent replacement waiting on its lock finds the row, not a gap.
        """
        existing = self.session.execute(
            select(_models.c.id, _models.c.blob_name)
            .where(
                _models.c.artifact_name == record.artifact_name,
                _models.c.artifact_version == record.artifact_version,
            )
            .with_for_update()
        ).first()
        values = _model_values(record)
        if existing is None:
            self.session.execute(
                insert(_models).values(
                    artifact_name=record.artifact_name, artifact_version=record.artifact_version, **values
                )
            )
        else:
            self.session.execute(delete(_keywords).where(_keywords.c.model_id == existing.id))
            self.session.execute(update(_models).where(_models.c.id == existing.id).values(**values))
        words = keywords_of(
            record.updated_by,
            record.tags,
            record.artifact_name,
            record.artifact_version,
            record.artifact_type,
        )
        if words:
            rows = [{"model_id": record.id, "keyword": word} for word in sorted(words)]
            self.session.execute(insert(_keywords), rows)
        return existing.blob_name if existing is not None else None

    def _delete(self, *conditions: ColumnElement[bool]) -> list[str]:
        """Delete the matching models; the names of their blobs (for the caller to remove)."""
        doomed = self.session.execute(
            select(_models.c.id, _models.c.blob_name).where(*conditions).with_for_update()
        ).all()
        ids = [row.id for row in doomed]
        if ids:
            self.session.execute(delete(_keywords).where(_keywords.c.model_id.in_(ids)))
            self.session.execute(delete(_models).where(_models.c.id.in_(ids)))
        return [row.blob_name for row in doomed]

    def delete(self, model_id: str) -> list[str]:
        return self._delete(_models.c.id == model_id)

    def delete_by_name(self, name: str, version: str) -> list[str]:
        return self._delete(_models.c.artifact_name == name, _models.c.artifact_version == version)
