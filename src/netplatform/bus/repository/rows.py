"""Rows as wire models, mechanically: column = snake case of the field name (one :class:`Kind` per table).

Generic access by natural key (:class:`RowRepository`), shared by every concept of the bus controller.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import CursorResult, Table, delete, insert, select, update
from sqlalchemy.engine import Result, Row
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .. import tables
from ..schemas import (
    DrNode,
    DrPub,
    DrSub,
    Feed,
    MirrorMaker,
    MrClient,
    MrCluster,
    SvcLocation,
    Topic,
    WireModel,
)

M = TypeVar("M", bound=WireModel)


class Duplicate(Exception):
    """Another object already holds this unique key (possibly inserted concurrently)."""


@dataclass(frozen=True)
class Kind(Generic[M]):
    """One table, the column that is its natural key, and the wire model of its rows."""

    table: Table
    key: str
    model: type[M]


LOCATIONS = Kind(tables.locations, "svc_location_name", SvcLocation)
DR_NODES = Kind(tables.dr_nodes, "fqdn", DrNode)
CLUSTERS = Kind(tables.clusters, "svc_location_name", MrCluster)
TOPICS = Kind(tables.topics, "fqtn", Topic)
CLIENTS = Kind(tables.clients, "mr_client_id", MrClient)
MIRROR_MAKERS = Kind(tables.mirror_makers, "mm_name", MirrorMaker)
FEEDS = Kind(tables.feeds, "feed_id", Feed)
PUBS = Kind(tables.pubs, "pub_id", DrPub)
SUBS = Kind(tables.subs, "sub_id", DrSub)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


@cache
def field_columns(model: type[WireModel], table: Table) -> tuple[tuple[str, str], ...]:
    """(field, column) pairs of the model's fields that the table stores."""
    return tuple((field, _snake(field)) for field in model.model_fields if _snake(field) in table.c)


def to_model(kind: Kind[M], row: Row[Any]) -> M:
    return model_of(kind, row._mapping)


def model_of(kind: Kind[M], values: Mapping[Any, Any]) -> M:
    """The wire model of a row given as column -> value."""
    return kind.model.model_validate(
        {field: values[column] for field, column in field_columns(kind.model, kind.table)}
    )


def to_values(kind: Kind[M], obj: M) -> dict[str, Any]:
    return {column: getattr(obj, field) for field, column in field_columns(kind.model, kind.table)}


def inserted_id(result: Result[Any]) -> int:
    """The surrogate id of the row an INSERT made (its result is a cursor result)."""
    key = cast("CursorResult[Any]", result).inserted_primary_key
    assert key is not None, "not the result of an INSERT"
    return int(key[0])


class RowRepository:
    """Generic access by natural key to the rows of any :class:`Kind`, on one session; every
    repository of the bus controller is one (and adds the queries of its concept)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, kind: Kind[M], key: str, *, for_update: bool = False) -> M | None:
        query = select(kind.table).where(kind.table.c[kind.key] == key)
        if for_update:
            query = query.with_for_update()
        row = self.session.execute(query).first()
        return to_model(kind, row) if row else None

    def list_all(self, kind: Kind[M], *conditions: Any) -> list[M]:
        query = select(kind.table).where(*conditions).order_by(kind.table.c.id)
        return [to_model(kind, row) for row in self.session.execute(query)]

    def insert(self, kind: Kind[M], obj: M, **extra: Any) -> int:
        """Insert and return the surrogate id; :class:`Duplicate` when the natural key is taken."""
        try:
            with self.session.begin_nested():
                result = self.session.execute(insert(kind.table).values(**to_values(kind, obj), **extra))
        except IntegrityError as error:
            raise Duplicate(str(error.orig)) from error
        return inserted_id(result)

    def update(self, kind: Kind[M], key: str, obj: M, **extra: Any) -> None:
        values = to_values(kind, obj)
        values.pop(kind.key, None)
        self.session.execute(
            update(kind.table).where(kind.table.c[kind.key] == key).values(**values, **extra)
        )

    def delete(self, kind: Kind[M], key: str) -> bool:
        result = self.session.execute(delete(kind.table).where(kind.table.c[kind.key] == key))
        return bool(cast("CursorResult[Any]", result).rowcount)
