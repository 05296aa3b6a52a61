"""The audit of workflow executions: one row per run (an async run's written before it runs and
completed after, a sync run's written when it has ended)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from ..tables import executions as _executions
from ._sql import rows_changed

IN_PROGRESS = "In Progress"
COMPLETED = "Completed"
FAILED = "Failed"


@dataclass(frozen=True)
class ExecutionRecord:
    id: int
    request_id: str
    sub_request_id: str
    originator_id: str
    blueprint_name: str
    blueprint_version: str
    blueprint_uuid: str | None
    workflow_name: str
    request_mode: str
    status: str
    request_content: str
    response_content: str | None
    error_message: str | None
    instance: str
    start_date: datetime
    end_date: datetime | None
    updated_date: datetime


# Built once: compiled once, not rebuilt (and their cache key worked out) on every run.
_INSERT = insert(_executions).returning(_executions.c.id)
_FINISH = update(_executions).where(_executions.c.id == bindparam("execution_id"))


class ExecutionRepository:
    """The execution audit records in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def insert(self, values: dict[str, Any]) -> int:
        return int(self.session.execute(_INSERT, values).scalar_one())

    def finish(self, execution_id: int, values: dict[str, Any]) -> None:
        """``values`` (the columns the update sets) must not name ``execution_id``."""
        self.session.execute(_FINISH, {**values, "execution_id": execution_id})

    def of_request(self, request_id: str, sub_request_id: str) -> list[ExecutionRecord]:
        statement = (
            select(_executions)
            .where(_executions.c.request_id == request_id, _executions.c.sub_request_id == sub_request_id)
            .order_by(_executions.c.id)
        )
        return [ExecutionRecord(**row._mapping) for row in self.session.execute(statement)]

    def recent(self, limit: int, offset: int = 0) -> list[ExecutionRecord]:
        """Newest first: ids grow with the order records are written (an async run's when it is
        accepted, a sync run's when it has ended)."""
        statement = select(_executions).order_by(_executions.c.id.desc()).limit(limit).offset(offset)
        return [ExecutionRecord(**row._mapping) for row in self.session.execute(statement)]

    def delete_older(self, before: datetime) -> int:
        return rows_changed(
            self.session.execute(delete(_executions).where(_executions.c.start_date < before))
        )

    def fail_interrupted(self, instance: str, now: datetime, message: str) -> int:
        """Executions this instance left in progress (it stopped meanwhile) are failed."""
        return rows_changed(
            self.session.execute(
                update(_executions)
                .where(_executions.c.status == IN_PROGRESS, _executions.c.instance == instance)
                .values(status=FAILED, error_message=message, end_date=now, updated_date=now)
            )
        )
