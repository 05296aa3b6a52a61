"""Feeds with their publishers and subscribers, read and stored as one :class:`FeedState`.

A publisher's or subscriber's ``userpwd`` is a credential the bus presents again (to the
distribution service), so it is sealed with the platform key before it reaches ``bus_pubs`` or
``bus_subs`` and opened when read (store/secrets.py; a value an earlier version stored in clear
opens as itself, and ``netplatform secrets rotate`` seals it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Row
from sqlalchemy.orm import Session

from ...store.secrets import Sealer
from .. import tables
from ..feed_state import FeedState, Held
from ..schemas import DrPub, DrSub, Feed
from .rows import FEEDS, LOCATIONS, PUBS, SUBS, Kind, RowRepository, inserted_id, to_model, to_values


def _held_feed(row: Row[Any]) -> Held[Feed]:
    return Held(to_model(FEEDS, row), int(row.id))


def feed_repository(sealer: Sealer) -> Callable[[Session], FeedRepository]:
    """The repository factory a UnitOfWork takes: feeds whose members' credentials ``sealer`` seals."""
    return lambda session: FeedRepository(session, sealer)


class FeedRepository(RowRepository):
    def __init__(self, session: Session, sealer: Sealer) -> None:
        super().__init__(session)
        self.sealer = sealer

    def _member(self, kind: Kind[Any], row: Row[Any]) -> Held[Any]:
        obj = to_model(kind, row)
        obj.userpwd = self.sealer.open_optional(obj.userpwd)
        return Held(obj, int(row.id))

    def first_central_location(self) -> str | None:
        """The oldest site location whose layer is central (where a feed's default publisher sits)."""
        for location in self.list_all(LOCATIONS):
            if location.central:
                return location.svcLocationName
        return None

    def find(self, name: str, version: str) -> Held[Feed] | None:
        table = tables.feeds
        row = self.session.execute(
            select(table).where(table.c.feed_name == name, table.c.feed_version == version)
        ).first()
        return _held_feed(row) if row else None

    def by_id(self, feed_id: str) -> Held[Feed] | None:
        row = self.session.execute(select(tables.feeds).where(tables.feeds.c.feed_id == feed_id)).first()
        return _held_feed(row) if row else None

    def named(self, name: str, version: str | None) -> list[Held[Feed]]:
        table = tables.feeds
        conditions = [table.c.feed_name == name]
        if version is not None:
            conditions.append(table.c.feed_version == version)
        return [
            _held_feed(row)
            for row in self.session.execute(select(table).where(*conditions).order_by(table.c.id))
        ]

    def ref_of_pub(self, pub_id: str) -> int | None:
        found = self.session.execute(
            select(tables.pubs.c.feed_ref).where(tables.pubs.c.pub_id == pub_id)
        ).scalar()
        return int(found) if found is not None else None

    def ref_of_sub(self, sub_id: str) -> int | None:
        found = self.session.execute(
            select(tables.subs.c.feed_ref).where(tables.subs.c.sub_id == sub_id)
        ).scalar()
        return int(found) if found is not None else None

    def load_state(self, ref: int) -> FeedState | None:
        row = self.session.execute(select(tables.feeds).where(tables.feeds.c.id == ref)).first()
        if row is None:
            return None
        pubs = self.session.execute(
            select(tables.pubs).where(tables.pubs.c.feed_ref == ref).order_by(tables.pubs.c.id)
        )
        subs = self.session.execute(
            select(tables.subs).where(tables.subs.c.feed_ref == ref).order_by(tables.subs.c.id)
        )
        return FeedState(
            ref=ref,
            feed=to_model(FEEDS, row),
            pubs=[self._member(PUBS, pub) for pub in pubs],
            subs=[self._member(SUBS, sub) for sub in subs],
        )

    def state_of(self, ref: int | None) -> FeedState | None:
        """:meth:`load_state`, None for no ref (a member that is not found)."""
        return self.load_state(ref) if ref is not None else None

    def states(self, conditions: Iterable[Any] = ()) -> list[FeedState]:
        """Every feed matching the conditions, with its publishers and subscribers (three queries)."""
        feeds_found = self.session.execute(
            select(tables.feeds).where(*conditions).order_by(tables.feeds.c.id)
        )
        states = {int(row.id): FeedState(int(row.id), to_model(FEEDS, row)) for row in feeds_found}
        if not states:
            return []
        refs = list(states)
        for pub in self.session.execute(
            select(tables.pubs).where(tables.pubs.c.feed_ref.in_(refs)).order_by(tables.pubs.c.id)
        ):
            states[int(pub.feed_ref)].pubs.append(self._member(PUBS, pub))
        for sub in self.session.execute(
            select(tables.subs).where(tables.subs.c.feed_ref.in_(refs)).order_by(tables.subs.c.id)
        ):
            states[int(sub.feed_ref)].subs.append(self._member(SUBS, sub))
        return list(states.values())

    def insert_feed(self, state: FeedState) -> int:
        """Store a new feed with its publishers and subscribers; :class:`~.rows.Duplicate` on name+version."""
        state.ref = self.insert(FEEDS, state.feed)
        self.save_state(state)
        return state.ref

    def save_state(self, state: FeedState) -> None:
        self.session.execute(
            update(tables.feeds).where(tables.feeds.c.id == state.ref).values(**to_values(FEEDS, state.feed))
        )
        self._save_members(PUBS, state.ref, state.pubs, state.dropped_pubs)
        self._save_members(SUBS, state.ref, state.subs, state.dropped_subs)
        state.dropped_pubs, state.dropped_subs = [], []

    def _save_members(
        self,
        kind: Kind[Any],
        feed_ref: int,
        members: list[Held[DrPub]] | list[Held[DrSub]],
        dropped: list[int],
    ) -> None:
        table = kind.table
        if dropped:
            self.session.execute(delete(table).where(table.c.id.in_(dropped)))
        for held in members:
            values = to_values(kind, held.obj)
            values["userpwd"] = self.sealer.seal_optional(values["userpwd"])
            if held.ref is None:
                held.ref = inserted_id(
                    self.session.execute(insert(table).values(**values, feed_ref=feed_ref))
                )
            else:
                self.session.execute(update(table).where(table.c.id == held.ref).values(**values))

    def delete_feed(self, ref: int) -> None:
        self.session.execute(delete(tables.pubs).where(tables.pubs.c.feed_ref == ref))
        self.session.execute(delete(tables.subs).where(tables.subs.c.feed_ref == ref))
        self.session.execute(delete(tables.feeds).where(tables.feeds.c.id == ref))


def feed_name_condition(name: str | None, version: str | None, match: str | None) -> list[Any]:
    """GET /feeds filters: name exact, ``startsWith`` or ``contains``; version exact."""
    table = tables.feeds
    conditions: list[Any] = []
    if name is not None:
        if match == "startsWith":
            conditions.append(table.c.feed_name.startswith(name, autoescape=True))
        elif match == "contains":
            conditions.append(table.c.feed_name.contains(name, autoescape=True))
        else:
            conditions.append(table.c.feed_name == name)
    if version is not None:
        conditions.append(table.c.feed_version == version)
    return conditions
