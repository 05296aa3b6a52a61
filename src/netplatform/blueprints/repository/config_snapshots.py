"""Configuration snapshots: the text of a resource's configuration, one per (type, id, status)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, delete, insert, select
from sqlalchemy.orm import Session

from ..tables import configs as _configs


@dataclass(frozen=True)
class ConfigRecord:
    resource_type: str
    resource_id: str
    status: str
    config_snapshot: str
    id: str
    created_date: datetime


def _config_record(row: Row[Any]) -> ConfigRecord:
    values = row._mapping
    return ConfigRecord(
        resource_type=values["resource_type"],
        resource_id=values["resource_id"],
        status=values["status"],
        config_snapshot=values["config_snapshot"],
        id=values["id"],
        created_date=values["created_date"],
    )


def _config_key(resource_type: str, resource_id: str, status: str) -> list[ColumnElement[bool]]:
    return [
        _configs.c.resource_type == resource_type,
        _configs.c.resource_id == resource_id,
        _configs.c.status == status,
    ]


class ConfigSnapshotRepository:
    """The configuration snapshots in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def replace(self, record: ConfigRecord) -> None:
        """Delete then insert, so the replaced snapshot becomes the newest in insertion order."""
        key = _config_key(record.resource_type, record.resource_id, record.status)
        self.session.execute(select(_configs.c.seq).where(*key).with_for_update()).all()
        self.session.execute(delete(_configs).where(*key))
        self.session.execute(
            insert(_configs).values(
                id=record.id,
                resource_type=record.resource_type,
                resource_id=record.resource_id,
                status=record.status,
                config_snapshot=record.config_snapshot,
                created_date=record.created_date,
            )
        )

    def find(self, resource_type: str, resource_id: str, status: str) -> ConfigRecord | None:
        query = select(_configs).where(*_config_key(resource_type, resource_id, status))
        row = self.session.execute(query).first()
        return _config_record(row) if row is not None else None

    def matching(
        self,
        *,
        resource_type: str | None = None,
        resource_id: str | None = None,
        status: str | None = None,
    ) -> list[ConfigRecord]:
        """Newest first: most recently created or replaced."""
        conditions = []
        if resource_type is not None:
            conditions.append(_configs.c.resource_type == resource_type)
        if resource_id is not None:
            conditions.append(_configs.c.resource_id == resource_id)
        if status is not None:
            conditions.append(_configs.c.status == status)
        query = select(_configs).where(*conditions).order_by(_configs.c.seq.desc())
        return [_config_record(row) for row in self.session.execute(query)]

    def delete(self, resource_type: str, resource_id: str, status: str) -> None:
        self.session.execute(delete(_configs).where(*_config_key(resource_type, resource_id, status)))
