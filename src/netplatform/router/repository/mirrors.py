"""Mirror agents' queries: their definitions, the leases that say which instance runs each, and
the last source sequence each has copied per topic.

A lease is a row per agent (and one, named '', for the reader of the bridge-admin topic): an
instance holds it until ``until_ms`` and renews it while it runs the agent; a conditional
UPDATE takes it only when it is free, expired or already this instance's, so two instances
over one database never run one agent at once (as distribution's queue claims).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from ..tables import identity, mirror_agents, mirror_leases, mirror_positions, mirror_settings

SETTINGS_ROW = 1


@dataclass(frozen=True)
class MirrorAgent:
    name: str
    source_url: str
    whitelist: tuple[str, ...]


@dataclass(frozen=True)
class StoredSettings:
    """What the bus controller told this router (PUT /internal/mirror-settings); empty: nothing
    yet. ``sources``: the registered clusters' router URLs, the hosts agents may connect to."""

    admin_topic: str = ""
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class CopyStatus:
    """The last copy attempt of one agent's topic. ``attempted_ms`` None: no attempt since the
    copy task started; ``last_error`` None: that attempt succeeded."""

    source_head: int | None = None
    last_error: str | None = None
    failing_since_ms: int | None = None
    attempted_ms: int | None = None


@dataclass(frozen=True)
class TopicProgress:
    """One agent's topic: its recorded position and copy status."""

    position: int
    status: CopyStatus


def _split(whitelist: str) -> tuple[str, ...]:
    return tuple(topic for topic in whitelist.split(",") if topic)


def _split_lines(text: str | None) -> tuple[str, ...]:
    return tuple(line for line in (text or "").split("\n") if line)


class MirrorRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def _run(self, statement: sa.Executable) -> CursorResult[Any]:
        return cast(CursorResult[Any], self.session.execute(statement))

    def _insert_absent(self, table: sa.Table, values: dict[str, object]) -> None:
        dialect = postgresql if self.session.get_bind().dialect.name == "postgresql" else sqlite
        self.session.execute(dialect.insert(table).values(values).on_conflict_do_nothing())

    # -- definitions ---------------------------------------------------------------------------

    def agents(self) -> list[MirrorAgent]:
        query = sa.select(mirror_agents.c.name, mirror_agents.c.source_url, mirror_agents.c.whitelist)
        return [MirrorAgent(name, url, _split(wl)) for name, url, wl in self.session.execute(query)]

    def agent(self, name: str) -> MirrorAgent | None:
        return next((agent for agent in self.agents_named([name])), None)

    def agents_named(self, names: Iterable[str]) -> list[MirrorAgent]:
        query = sa.select(mirror_agents.c.name, mirror_agents.c.source_url, mirror_agents.c.whitelist)
        query = query.where(mirror_agents.c.name.in_(list(names)))
        return [MirrorAgent(name, url, _split(wl)) for name, url, wl in self.session.execute(query)]

    def source_of(self, name: str) -> str | None:
        query = sa.select(mirror_agents.c.source_url).where(mirror_agents.c.name == name).with_for_update()
        return self.session.scalar(query)

    def insert_agent(self, name: str, source_url: str, consumer: str, producer: str, now_ms: int) -> None:
        values = {"source_url": source_url, "consumer": consumer, "producer": producer, "updated_ms": now_ms}
        self.session.execute(sa.insert(mirror_agents).values(name=name, whitelist="", **values))

    def redefine_agent(self, name: str, source_url: str, consumer: str, producer: str, now_ms: int) -> None:
        """New source and addresses; the whitelist stays (the bus controller re-sends it anyway)."""
        values = {"source_url": source_url, "consumer": consumer, "producer": producer, "updated_ms": now_ms}
        self.session.execute(sa.update(mirror_agents).where(mirror_agents.c.name == name).values(**values))

    def set_whitelist(self, name: str, topics: Iterable[str], now_ms: int) -> bool:
        """False when no agent has that name."""
        changed = self._run(
            sa.update(mirror_agents)
            .where(mirror_agents.c.name == name)
            .values(whitelist=",".join(topics), updated_ms=now_ms)
        )
        return changed.rowcount == 1

    # -- positions -----------------------------------------------------------------------------

    def position(self, agent: str, topic: str) -> int:
        query = sa.select(mirror_positions.c.position).where(
            mirror_positions.c.agent == agent, mirror_positions.c.topic == topic
        )
        return int(self.session.scalar(query) or 0)

    def advance(self, agent: str, topic: str, position: int) -> None:
        """Record ``position``; never backwards (a late writer that lost its lease cannot undo)."""
        self.record(agent, topic, position, None)

    def record(self, agent: str, topic: str, position: int | None, status: CopyStatus | None) -> None:
        """Record ``position`` (when given; never backwards: a late writer that lost its lease
        cannot undo) and ``status`` (when given) of an agent's topic."""
        self._insert_absent(mirror_positions, {"agent": agent, "topic": topic, "position": 0})
        mine = sa.and_(mirror_positions.c.agent == agent, mirror_positions.c.topic == topic)
        if position is not None:
            self.session.execute(
                sa.update(mirror_positions)
                .where(mine, mirror_positions.c.position < position)
                .values(position=position)
            )
        if status is not None:
            self.session.execute(
                sa.update(mirror_positions)
                .where(mine)
                .values(
                    source_head=status.source_head,
                    last_error=status.last_error,
                    failing_since_ms=status.failing_since_ms,
                    status_ms=status.attempted_ms,
                )
            )

    def positions_of(self, agents: Iterable[str]) -> dict[str, dict[str, TopicProgress]]:
        """Each of ``agents``' recorded positions and copy statuses, by agent and topic."""
        columns = mirror_positions.c
        query = sa.select(
            columns.agent,
            columns.topic,
            columns.position,
            columns.source_head,
            columns.last_error,
            columns.failing_since_ms,
            columns.status_ms,
        ).where(columns.agent.in_(list(agents)))
        found: dict[str, dict[str, TopicProgress]] = {}
        for agent, topic, position, head, error, since, attempted in self.session.execute(query):
            status = CopyStatus(_int(head), error, _int(since), _int(attempted))
            found.setdefault(agent, {})[topic] = TopicProgress(int(position), status)
        return found

    def forget_positions(self, agent: str) -> None:
        self.session.execute(sa.delete(mirror_positions).where(mirror_positions.c.agent == agent))

    def forget_position(self, agent: str, topic: str) -> None:
        mine = sa.and_(mirror_positions.c.agent == agent, mirror_positions.c.topic == topic)
        self.session.execute(sa.delete(mirror_positions).where(mine))

    # -- settings --------------------------------------------------------------------------------

    def settings(self) -> StoredSettings:
        row = self.session.execute(
            sa.select(mirror_settings.c.admin_topic, mirror_settings.c.sources).where(
                mirror_settings.c.id == SETTINGS_ROW
            )
        ).first()
        return StoredSettings() if row is None else StoredSettings(row[0], _split_lines(row[1]))

    def router_id(self, made: str) -> str:
        """This router's id: one per database, ``made`` (random) when it has none yet."""
        self._insert_absent(identity, {"id": 1, "router_id": made})
        return str(self.session.scalar(sa.select(identity.c.router_id).where(identity.c.id == 1)))

    def store_settings(self, stored: StoredSettings, now_ms: int) -> None:
        values = {
            "admin_topic": stored.admin_topic,
            "sources": "\n".join(stored.sources),
            "updated_ms": now_ms,
        }
        self._insert_absent(mirror_settings, {"id": SETTINGS_ROW, **values})
        self.session.execute(
            sa.update(mirror_settings).where(mirror_settings.c.id == SETTINGS_ROW).values(**values)
        )

    # -- leases --------------------------------------------------------------------------------

    def claim(self, name: str, holder: str, now_ms: int, until_ms: int) -> bool:
        """Take the lease of ``name`` when it is free, expired or ``holder``'s own."""
        self._insert_absent(mirror_leases, {"name": name, "holder": None, "until_ms": None})
        claimed = self._run(
            sa.update(mirror_leases)
            .where(
                mirror_leases.c.name == name,
                sa.or_(
                    mirror_leases.c.holder.is_(None),
                    mirror_leases.c.holder == holder,
                    mirror_leases.c.until_ms < now_ms,
                ),
            )
            .values(holder=holder, until_ms=until_ms)
        )
        return claimed.rowcount == 1

    def claimable(self, names: Iterable[str], holder: str, now_ms: int) -> list[str]:
        """Those of ``names`` whose lease is absent, free, expired or ``holder``'s: a read first,
        so instances do not write every round to find every lease taken."""
        wanted = list(names)
        held = self.session.execute(
            sa.select(mirror_leases.c.name).where(
                mirror_leases.c.name.in_(wanted),
                mirror_leases.c.holder.is_not(None),
                mirror_leases.c.holder != holder,
                mirror_leases.c.until_ms >= now_ms,
            )
        )
        taken = {name for (name,) in held}
        return [name for name in wanted if name not in taken]

    def holders(self, names: Iterable[str], now_ms: int) -> dict[str, str]:
        """The instance holding each of ``names`` whose lease has not run out (others are absent)."""
        query = sa.select(mirror_leases.c.name, mirror_leases.c.holder).where(
            mirror_leases.c.name.in_(list(names)),
            mirror_leases.c.holder.is_not(None),
            mirror_leases.c.until_ms >= now_ms,
        )
        return {name: holder for name, holder in self.session.execute(query)}

    def renew(self, names: Iterable[str], holder: str, until_ms: int) -> set[str]:
        """Push ``holder``'s leases of ``names`` on; those it still holds."""
        wanted = list(names)
        if not wanted:
            return set()
        mine = sa.and_(mirror_leases.c.name.in_(wanted), mirror_leases.c.holder == holder)
        self.session.execute(sa.update(mirror_leases).where(mine).values(until_ms=until_ms))
        return set(self.session.scalars(sa.select(mirror_leases.c.name).where(mine)))

    def release(self, names: Iterable[str], holder: str) -> None:
        mine = sa.and_(mirror_leases.c.name.in_(list(names)), mirror_leases.c.holder == holder)
        self.session.execute(sa.update(mirror_leases).where(mine).values(holder=None, until_ms=None))

    def release_all(self, holder: str) -> None:
        """Free every lease of ``holder`` (a restarted instance frees what its crash left held)."""
        self.session.execute(
            sa.update(mirror_leases)
            .where(mirror_leases.c.holder == holder)
            .values(holder=None, until_ms=None)
        )


def _int(value: object) -> int | None:
    return None if value is None else int(cast(int, value))
