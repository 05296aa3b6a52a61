"""The bus settings: a singleton row."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from .. import tables
from ..schemas import BusSettings
from .rows import field_columns

_TABLE = tables.settings_table


class BusSettingsRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self) -> BusSettings:
        """The settings object (a write that changes it holds the topology lock)."""
        row = self.session.execute(select(_TABLE).where(_TABLE.c.id == 1)).one()
        return BusSettings.model_validate(
            {field: row._mapping[column] for field, column in field_columns(BusSettings, _TABLE)}
        )

    def save(self, settings: BusSettings) -> None:
        values = {column: getattr(settings, field) for field, column in field_columns(BusSettings, _TABLE)}
        self.session.execute(update(_TABLE).where(_TABLE.c.id == 1).values(**values))

    def next_client_id(self, now_ms: int) -> str:
        """Epoch milliseconds, strictly increasing (bumped when equal); call holding the topology lock."""
        last = self.session.execute(select(_TABLE.c.last_client_id).where(_TABLE.c.id == 1)).scalar_one()
        chosen = max(now_ms, int(last) + 1)
        self.session.execute(update(_TABLE).where(_TABLE.c.id == 1).values(last_client_id=chosen))
        return str(chosen)
