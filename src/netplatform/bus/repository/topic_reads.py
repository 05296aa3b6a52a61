"""One topic with its clients in one statement, outside any transaction: the bus's hot GET.

A topic's answer is its row and its clients' rows. Read as one statement (the topic joined to
its clients), they come from one snapshot on either database, so the answer is one the
topology really had, with no session or transaction around it
(:meth:`~netplatform.store.unit_of_work.UnitOfWork.statement`).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import bindparam, select

from ...store.unit_of_work import UnitOfWork
from .. import tables
from ..schemas import Topic
from .rows import CLIENTS, TOPICS, model_of

_TOPIC_COLUMNS = tuple(column.name for column in tables.topics.c)
_CLIENT_COLUMNS = tuple(column.name for column in tables.clients.c)


class TopicReader:
    def __init__(self, unit: UnitOfWork[Any]) -> None:
        topics, clients = tables.topics, tables.clients
        self.query = unit.statement(
            select(*topics.c, *clients.c)
            .select_from(topics.outerjoin(clients, clients.c.fqtn == topics.c.fqtn))
            .where(topics.c.fqtn == bindparam("fqtn"))
            .order_by(clients.c.id),
        )

    def topic(self, fqtn: str) -> Topic | None:
        """The topic with its clients in creation order, None if there is none."""
        rows = self.query.rows(fqtn=fqtn)
        if not rows:
            return None
        width = len(_TOPIC_COLUMNS)
        topic = model_of(TOPICS, dict(zip(_TOPIC_COLUMNS, rows[0][:width], strict=True)))
        topic.clients = [
            model_of(CLIENTS, _client_values(dict(zip(_CLIENT_COLUMNS, row[width:], strict=True))))
            for row in rows
            if row[width] is not None  # the outer join's row of a topic without clients
        ]
        return topic


def _client_values(values: dict[str, Any]) -> dict[str, Any]:
    """The driver's values as the JSON column type would give them: SQLite's driver hands the
    JSON column over as text, psycopg's already decoded."""
    action = values["action"]
    if isinstance(action, str | bytes):
        values["action"] = json.loads(action)
    return values
