"""Every query of the policy service, given a session; it never opens a transaction.

:class:`Repository` is one transaction's view of the tables; the transactions are opened by
:class:`~.policy_store.PolicyStore`.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any

from sqlalchemy import Select, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from .model import Entity, Kind
from .tables import catalog_loads, entities, policy_object, policy_type_object, statistics
from .versions import is_name, is_version

_COLUMNS = (entities.c.kind, entities.c.name, entities.c.version, entities.c.body, entities.c.preloaded)


# The statements every write runs, built once with their values bound at execution: building
# and keying a statement cost more than SQLite running it.
_ONE = select(*_COLUMNS).where(
    entities.c.kind == bindparam("kind"),
    entities.c.name == bindparam("name"),
    entities.c.version == bindparam("version"),
)
_ONE_LOCKED = _ONE.with_for_update()
_NAMED = select(*_COLUMNS).where(
    entities.c.kind == bindparam("kind"), entities.c.name.in_(bindparam("names", expanding=True))
)
_NAMED_SHARED = _NAMED.with_for_update(read=True)
_CHILDREN = select(*_COLUMNS).where(
    entities.c.kind == bindparam("kind"), entities.c.parent_name.in_(bindparam("names", expanding=True))
)
_FIRST_POLICY_OF_TYPE = (
    select(*_COLUMNS)
    .where(
        entities.c.kind == Kind.POLICY.value,
        entities.c.type_name == bindparam("type_name"),
        entities.c.type_version == bindparam("type_version"),
    )
    .order_by(entities.c.name, entities.c.version)
    .limit(1)
)
_DELETE = delete(entities).where(
    entities.c.kind == bindparam("kind"),
    entities.c.name == bindparam("name"),
    entities.c.version == bindparam("version"),
)


_WRITTEN = "netplatform.policy.written"
_DELETED_TYPES = "netplatform.policy.deleted_types"


def written(session: Session) -> set[tuple[str, str]]:
    """The (kind, name) of every entity this transaction has written (policy_store.py turns
    them into the objects its change is recorded under), but for deleted policy types."""
    found: set[tuple[str, str]] = session.info.setdefault(_WRITTEN, set())
    return found


def deleted_types(session: Session) -> set[str]:
    """The names of the policy types this transaction has deleted: no type derives from one
    (a type with children is not deleted), so there are no descendants to look for."""
    found: set[str] = session.info.setdefault(_DELETED_TYPES, set())
    return found


def _entity(row: Any) -> Entity:
    return Entity(Kind(row.kind), row.name, row.version, row.body, preloaded=bool(row.preloaded))


class Repository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def _all(self, query: Select[Any], values: Mapping[str, Any] | None = None) -> list[Entity]:
        return [_entity(row) for row in self.session.execute(query, values)]

    # --- entities ---------------------------------------------------------------------------

    def one(self, kind: Kind, name: str, version: str, *, lock: bool = False) -> Entity | None:
        """One entity; ``lock`` holds it against concurrent change until the commit."""
        values = {"kind": kind.value, "name": name, "version": version}
        found = self._all(_ONE_LOCKED if lock else _ONE, values)
        return found[0] if found else None

    def named(self, kind: Kind, names: Collection[str], *, share_lock: bool = False) -> list[Entity]:
        """Every version of these names; ``share_lock`` keeps them from being deleted meanwhile.

        Asked in chunks: a large payload may name more entities than a statement may bind.
        """
        found: list[Entity] = []
        query = _NAMED_SHARED if share_lock else _NAMED
        for chunk in _chunks(sorted(names)):
            found.extend(self._all(query, {"kind": kind.value, "names": chunk}))
        return found

    def all(self, kind: Kind) -> list[Entity]:
        return self._all(select(*_COLUMNS).where(entities.c.kind == kind.value))

    def of_type(self, kind: Kind, type_name: str, type_version: str, name: str | None = None) -> list[Entity]:
        """Policies (or node templates) of one exact type version, optionally of one name."""
        query = select(*_COLUMNS).where(
            entities.c.kind == kind.value,
            entities.c.type_name == type_name,
            entities.c.type_version == type_version,
        )
        if name is not None:
            query = query.where(entities.c.name == name)
        return self._all(query)

    def children(self, kind: Kind, parent_names: Collection[str]) -> list[Entity]:
        """The types whose derived_from names one of ``parent_names`` (any version)."""
        found: list[Entity] = []
        for chunk in _chunks(sorted(parent_names)):
            found.extend(self._all(_CHILDREN, {"kind": kind.value, "names": chunk}))
        return found

    def changed_objects(self) -> set[str | None]:
        """The change-log keys of what this transaction wrote (:func:`written`): a policy type's
        name and every type below it (their answers show their ancestors; a deleted type has
        none, :func:`deleted_types`), a policy's name,
        and None (every object) for any other kind, whose entities answers of many names show.
        Called with the generation row locked, so every type committed before is seen."""
        found: set[str | None] = set()
        types: set[str] = set()
        for kind, name in written(self.session):
            if kind == Kind.POLICY_TYPE.value:
                types.add(name)
            else:
                found.add(policy_object(name) if kind == Kind.POLICY.value else None)
        found.update(policy_type_object(name) for name in deleted_types(self.session) - types)
        while types:
            found.update(policy_type_object(name) for name in types)
            below = {entity.name for entity in self.children(Kind.POLICY_TYPE, types)}
            types = {name for name in below if policy_type_object(name) not in found}
        written(self.session).clear()
        deleted_types(self.session).clear()
        return found

    def first_policy_of_type(self, type_name: str, type_version: str) -> Entity | None:
        found = self._all(_FIRST_POLICY_OF_TYPE, {"type_name": type_name, "type_version": type_version})
        return found[0] if found else None

    def first_policy_naming_metadata_set(self, name: str, version: str) -> Entity | None:
        found = self._all(
            select(*_COLUMNS)
            .where(
                entities.c.kind == Kind.POLICY.value,
                entities.c.metadata_set_name == name,
                entities.c.metadata_set_version == version,
            )
            .order_by(entities.c.name, entities.c.version)
            .limit(1)
        )
        return found[0] if found else None

    def insert(self, new: Iterable[Entity], *, preloaded: bool = False) -> None:
        rows = [_row(entity, preloaded) for entity in new]
        if rows:
            written(self.session).update((row["kind"], row["name"]) for row in rows)
            self.session.execute(insert(entities), rows)

    def replace_body(self, entity: Entity) -> None:
        written(self.session).add((entity.kind.value, entity.name))
        row = _row(entity, preloaded=False)
        del row["preloaded"]
        self.session.execute(
            update(entities)
            .where(
                entities.c.kind == entity.kind.value,
                entities.c.name == entity.name,
                entities.c.version == entity.version,
            )
            .values(row)
        )

    def delete(self, entity: Entity) -> None:
        if entity.kind is Kind.POLICY_TYPE:
            deleted_types(self.session).add(entity.name)
        else:
            written(self.session).add((entity.kind.value, entity.name))
        self.session.execute(
            _DELETE, {"kind": entity.kind.value, "name": entity.name, "version": entity.version}
        )

    # --- statistics ---------------------------------------------------------------------------

    def add_to_counters(self, amounts: Mapping[str, int]) -> None:
        """Add to each counter, atomically (instances sharing the database add up)."""
        statement = (
            update(statistics)
            .where(statistics.c.name == bindparam("counter"))
            .values(value=statistics.c.value + bindparam("amount"))
        )
        rows = [{"counter": name, "amount": amount} for name, amount in sorted(amounts.items())]
        if rows:
            self.session.connection().execute(statement, rows)

    def counters(self) -> dict[str, int]:
        return {row.name: int(row.value) for row in self.session.execute(select(statistics))}

    # --- preloaded catalog ------------------------------------------------------------------

    def catalog_loaded(self, name: str) -> bool:
        return (
            self.session.scalar(select(catalog_loads.c.name).where(catalog_loads.c.name == name)) is not None
        )

    def mark_catalog_loaded(self, name: str) -> None:
        self.session.execute(
            insert(catalog_loads).values(name=name, loaded_at=datetime.datetime.now(datetime.UTC))
        )


IN_CHUNK = 500
"""Names per ``IN (...)``: far below SQLite's and PostgreSQL's bound-parameter limits."""


def _chunks(names: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(names), IN_CHUNK):
        yield names[start : start + IN_CHUNK]


def _row(entity: Entity, preloaded: bool) -> dict[str, Any]:
    parent = entity.parent if entity.kind.is_type else None
    type_reference = entity.type_reference if not entity.kind.is_type else None
    metadata_set = entity.metadata_set if entity.kind is Kind.POLICY else None
    if metadata_set is not None and not (is_name(metadata_set.name) and is_version(metadata_set.version)):
        metadata_set = None  # names no node template can have: it can never block a delete
    return {
        "kind": entity.kind.value,
        "name": entity.name,
        "version": entity.version,
        "parent_name": parent.name if parent else None,
        "type_name": type_reference.name if type_reference else None,
        "type_version": type_reference.version if type_reference else None,
        "metadata_set_name": metadata_set.name if metadata_set else None,
        "metadata_set_version": metadata_set.version if metadata_set else None,
        "preloaded": preloaded,
        "body": entity.body,
    }
