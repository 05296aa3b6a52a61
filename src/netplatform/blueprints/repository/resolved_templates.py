"""Resolved (meshed) templates: one result per resolution key."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from ..tables import templates as _templates
from .resolution_keys import ResolutionKey


@dataclass(frozen=True)
class TemplateRecord:
    key: ResolutionKey
    result: str
    id: str
    created_date: datetime


def replace_template(session: Session, record: TemplateRecord) -> None:
    conditions = record.key.conditions(_templates)
    session.execute(select(_templates.c.id).where(*conditions).with_for_update()).all()
    session.execute(delete(_templates).where(*conditions))
    session.execute(
        insert(_templates).values(
            id=record.id, result=record.result, created_date=record.created_date, **record.key.columns()
        )
    )


def find_template(session: Session, key: ResolutionKey) -> TemplateRecord | None:
    row = session.execute(select(_templates).where(*key.conditions(_templates))).first()
    if row is None:
        return None
    values = row._mapping
    return TemplateRecord(
        key=key, result=values["result"], id=values["id"], created_date=values["created_date"]
    )
