"""The bus settings: a singleton row, which is also the lock every message-router write takes."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from .. import tables
from ..schemas import BusSettings
from .rows import field_columns

_TABLE = tables.settings_table


def bus_settings(session: Session, *, for_update: bool = False) -> BusSettings:
    """The settings object; ``for_update`` also takes the lock every message-router write holds."""
    query = select(_TABLE).where(_TABLE.c.id == 1)
    if for_update:
        query = query.with_for_update()
    row = session.execute(query).one()
    return BusSettings.model_validate(
        {field: row._mapping[column] for field, column in field_columns(BusSettings, _TABLE)}
    )


def save_bus_settings(session: Session, settings: BusSettings) -> None:
    values = {column: getattr(settings, field) for field, column in field_columns(BusSettings, _TABLE)}
    session.execute(update(_TABLE).where(_TABLE.c.id == 1).values(**values))


def next_client_id(session: Session, now_ms: int) -> str:
    """Epoch milliseconds, strictly increasing (bumped when equal); call holding the bus lock."""
    last = session.execute(select(_TABLE.c.last_client_id).where(_TABLE.c.id == 1)).scalar_one()
    chosen = max(now_ms, int(last) + 1)
    session.execute(update(_TABLE).where(_TABLE.c.id == 1).values(last_client_id=chosen))
    return str(chosen)
