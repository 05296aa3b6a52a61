"""Generations the database moves itself (``watching``), on SQLite and PostgreSQL.

Services whose writes are spread over many places let triggers move their generation, so a
write path that forgets cannot exist; these tests pin what the triggers do, and that every table
a service declares watched still has them in the head schema (a table rebuilt by a later
migration loses its triggers on SQLite).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Column, Integer, String, Table, delete, insert, inspect, select, text, update
from sqlalchemy.orm import Session

from netplatform.access import tables as access_tables
from netplatform.blueprints import tables as blueprint_tables
from netplatform.bus import tables as bus_tables
from netplatform.configtree import tables as configtree_tables
from netplatform.distribution import tables as distribution_tables
from netplatform.settings import Settings
from netplatform.store.db import Database, database_for, new_metadata
from netplatform.store.generations import Generation, changes_table, generations_table
from netplatform.store.migrate import alembic_config, upgrade
from netplatform.store.migrations.watched_scopes import ChangeLog, Keyed, unwatching, watching

WATCHED = [
    (bus_tables.generations, bus_tables.TOPOLOGY_SCOPE, bus_tables.TOPOLOGY_TABLES),
    (
        distribution_tables.generations,
        distribution_tables.PROVISIONING_SCOPE,
        distribution_tables.PROVISIONING_TABLES,
    ),
    (
        distribution_tables.network_generations,
        distribution_tables.NETWORK_SCOPE,
        distribution_tables.NETWORK_TABLES,
    ),
    (configtree_tables.generations, configtree_tables.TREE_SCOPE, configtree_tables.TREE_TABLES),
    (blueprint_tables.generations, blueprint_tables.CATALOG_SCOPE, blueprint_tables.CATALOG_TABLES),
    (access_tables.generations, access_tables.GENERATION_SCOPE, access_tables.WATCHED_TABLES),
]

METADATA = new_metadata()
GENERATIONS = generations_table("test_watch_generations", METADATA)
WATCHED_ITEMS = Table(
    "test_watched_items", METADATA, Column("id", Integer, primary_key=True), Column("name", String(40))
)
OTHER_ITEMS = Table(
    "test_other_items", METADATA, Column("id", Integer, primary_key=True), Column("name", String(40))
)


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = database_for(settings)
    METADATA.create_all(database.engine)
    with database.write() as session:
        session.execute(insert(GENERATIONS).values(scope="items", generation=0))
        for statement in watching(
            database.engine.dialect.name, GENERATIONS.name, "items", [WATCHED_ITEMS.name]
        ):
            session.execute(text(statement))
    yield database
    with database.write() as session:
        for statement in unwatching(database.engine.dialect.name, GENERATIONS.name, [WATCHED_ITEMS.name]):
            session.execute(text(statement))
    METADATA.drop_all(database.engine)


def test_each_committed_row_written_moves_the_generation_on(db: Database) -> None:
    generation = Generation(db, GENERATIONS, "items")
    assert generation.peek() == 0
    with db.write() as session:
        session.execute(insert(WATCHED_ITEMS), [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    assert generation.peek() == 2
    with db.write() as session:
        session.execute(update(WATCHED_ITEMS).where(WATCHED_ITEMS.c.id == 1).values(name="c"))
    assert generation.peek() == 3
    with db.write() as session:
        session.execute(delete(WATCHED_ITEMS))
    assert generation.peek() == 5
    with db.write() as session:
        # Raw SQL too: the database moves it, whatever wrote the row.
        session.execute(text("INSERT INTO test_watched_items (id, name) VALUES (3, 'raw')"))
    assert generation.peek() == 6


def test_a_rolled_back_write_and_a_write_elsewhere_leave_it_standing(db: Database) -> None:
    generation = Generation(db, GENERATIONS, "items")

    class Abandoned(Exception):
        pass

    with pytest.raises(Abandoned), db.write() as session:
        session.execute(insert(WATCHED_ITEMS).values(id=1, name="a"))
        raise Abandoned
    with db.write() as session:
        session.execute(insert(OTHER_ITEMS).values(id=1, name="a"))
    assert generation.peek() == 0


def test_unwatching_removes_the_triggers(db: Database) -> None:
    generation = Generation(db, GENERATIONS, "items")
    with db.write() as session:
        for statement in unwatching(db.engine.dialect.name, GENERATIONS.name, [WATCHED_ITEMS.name]):
            session.execute(text(statement))
    with db.write() as session:
        session.execute(insert(WATCHED_ITEMS).values(id=1, name="a"))
    assert generation.peek() == 0


def test_every_watched_table_of_the_head_schema_has_its_triggers(settings: Settings) -> None:
    upgrade(settings)
    db = database_for(settings)
    with db.read() as session:
        if db.is_postgresql:
            found = session.execute(
                text("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal OR tgconstraint <> 0")
            ).scalars()
        else:
            found = session.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars()
        names = set(found)
        expected: set[str] = set()
        for table, scope, watched in WATCHED:
            assert Generation(db, table, scope).in_transaction(session) >= 0
            for name in watched:
                expected |= (
                    {f"{name}_generation", f"{name}_generation_truncate"}
                    if db.is_postgresql
                    else {f"{name}_generation_{event}" for event in ("insert", "update", "delete")}
                )
        # Exactly those: a table a scope does not list moving its generation anyway would end
        # replays no answer needs ended, and queue its writers on the generation row.
        assert {name for name in names if "_generation" in name} == expected
        assert recording(db, session) == LOGGED


# The scopes with a change log: every watched table's triggers record into it, and exactly
# these record an object's key (the others NULL: every object).
LOGGED = (
    {
        (bus_tables.changes.name, table, table in ("bus_topics", "bus_clients"))
        for table in bus_tables.TOPOLOGY_TABLES
    }
    | {(distribution_tables.changes.name, table, True) for table in distribution_tables.PROVISIONING_TABLES}
    | {
        (configtree_tables.changes.name, "configtree_containers", False),
        (configtree_tables.changes.name, "configtree_entries", True),
    }
)


def recording(db: Database, session: Session) -> set[tuple[str, str, bool]]:
    """(change log, table, keyed) for every watched table whose triggers record its changes."""
    logs = {
        table.name for table in (bus_tables.changes, distribution_tables.changes, configtree_tables.changes)
    }
    found = set()
    if db.is_postgresql:
        rows = session.execute(
            text(
                "SELECT c.relname, p.proname, p.prosrc FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid "
                "WHERE t.tgname LIKE '%\\_generation'"
            )
        )
    else:
        rows = session.execute(
            text(
                "SELECT tbl_name, name, sql FROM sqlite_master "
                "WHERE type = 'trigger' AND name LIKE '%_generation_update'"
            )
        )
    for table, name, source in rows:
        for log in logs:
            if f"INSERT INTO {log} " in source:
                keyed = name.endswith("_generation_changed") if db.is_postgresql else "NEW." in source
                found.add((log, table, keyed))
    return found


CHANGES = changes_table("test_watch_changes", METADATA)
KEYED_ITEMS = Keyed(WATCHED_ITEMS.name, "'item:' || {row}.id")


@pytest.fixture
def logged(settings: Settings) -> Iterator[Database]:
    """The items watched with a change log keeping 4 generations: WATCHED_ITEMS keyed by id,
    OTHER_ITEMS without a key."""
    database = database_for(settings)
    METADATA.create_all(database.engine)
    dialect = database.engine.dialect.name
    tables: list[Keyed | str] = [KEYED_ITEMS, OTHER_ITEMS.name]
    log = ChangeLog(CHANGES.name, keep=4)
    with database.write() as session:
        session.execute(insert(GENERATIONS).values(scope="items", generation=0))
        for statement in watching(dialect, GENERATIONS.name, "items", tables, log=log):
            session.execute(text(statement))
    yield database
    with database.write() as session:
        for statement in unwatching(dialect, GENERATIONS.name, tables):
            session.execute(text(statement))
    METADATA.drop_all(database.engine)


def logged_changes(db: Database) -> set[tuple[int, str | None]]:
    with db.read() as session:
        return {(int(row.generation), row.object_key) for row in session.execute(select(CHANGES))}


def test_each_write_records_its_object_under_the_generation_it_moves_and_old_rows_go(
    logged: Database,
) -> None:
    def write(statement: Any) -> None:
        with logged.write() as session:
            session.execute(statement)

    write(insert(WATCHED_ITEMS).values(id=1, name="a"))
    write(insert(WATCHED_ITEMS).values(id=2, name="b"))
    assert logged_changes(logged) == {(1, "item:1"), (2, "item:2")}
    write(update(WATCHED_ITEMS).where(WATCHED_ITEMS.c.id == 1).values(name="c"))
    write(update(WATCHED_ITEMS).where(WATCHED_ITEMS.c.id == 1).values(id=7))  # both keys
    write(insert(OTHER_ITEMS).values(id=1, name="a"))  # no key: every object
    write(delete(WATCHED_ITEMS).where(WATCHED_ITEMS.c.id == 7))
    # Rows 4 generations behind the last write are gone.
    assert logged_changes(logged) == {(3, "item:1"), (4, "item:7"), (4, "item:1"), (5, None), (6, "item:7")}


def test_a_reader_keeps_what_no_change_touched_and_forgets_when_the_log_does(logged: Database) -> None:
    reader = Generation(logged, GENERATIONS, "items", changes=CHANGES)
    assert reader.changes is not None

    def write(statement: Any) -> None:
        with logged.write() as session:
            session.execute(statement)

    async def scenario() -> None:
        assert await reader.current() == 0
        write(insert(WATCHED_ITEMS).values(id=1, name="a"))
        now = await reader.current()
        assert await reader.unchanged(frozenset({"item:2"}), 0, now)
        assert not await reader.unchanged(frozenset({"item:1"}), 0, now)
        assert reader.changes is not None and reader.changes.reads == 1  # one read per step
        assert await reader.unchanged(frozenset({"item:1"}), 1, now)
        write(insert(OTHER_ITEMS).values(id=1, name="a"))
        assert not await reader.unchanged(frozenset({"item:2"}), 1, await reader.current())
        write(insert(WATCHED_ITEMS).values(id=3, name="c"))
        write(insert(WATCHED_ITEMS).values(id=4, name="d"))
        # Pruned past what the reader knows (2): the change at 3 is gone, so item:2 counts as
        # changed, although neither write touched it.
        write(delete(CHANGES).where(CHANGES.c.generation <= 3))
        assert not await reader.unchanged(frozenset({"item:2"}), 2, await reader.current())
        write(insert(WATCHED_ITEMS).values(id=5, name="e"))
        assert await reader.unchanged(frozenset({"item:2"}), 4, await reader.current())

    asyncio.run(scenario())


def test_unwatching_some_tables_leaves_the_others_watched(db: Database) -> None:
    generation = Generation(db, GENERATIONS, "items")
    dialect = db.engine.dialect.name
    with db.write() as session:
        for statement in watching(dialect, GENERATIONS.name, "items", [OTHER_ITEMS.name]):
            session.execute(text(statement))
    with db.write() as session:
        for statement in unwatching(dialect, GENERATIONS.name, [OTHER_ITEMS.name], every_table=False):
            session.execute(text(statement))
    with db.write() as session:
        session.execute(insert(OTHER_ITEMS).values(id=1, name="a"))
    assert generation.peek() == 0
    with db.write() as session:  # on PostgreSQL, the function the remaining triggers call is kept
        session.execute(insert(WATCHED_ITEMS).values(id=1, name="a"))
    assert generation.peek() == 1


def test_the_catalog_stops_watching_its_run_results_and_a_downgrade_watches_them_again(
    settings: Settings,
) -> None:
    upgrade(settings)
    db = database_for(settings)
    catalog = Generation(db, blueprint_tables.generations, blueprint_tables.CATALOG_SCOPE)
    template = {
        "id": "t-1",
        "blueprint_name": "bp",
        "blueprint_version": "1.0.0",
        "artifact_name": "a",
        "resolution_key": "k",
        "resource_type": "",
        "resource_id": "",
        "occurrence": 1,
        "result": "text",
        "created_date": datetime(2026, 12, 7),
    }
    before = catalog.peek()
    with db.write() as session:
        session.execute(insert(blueprint_tables.templates).values(template))
    assert catalog.peek() == before
    with db.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "blueprints_0004")
        connection.commit()
    with db.write() as session:
        session.execute(
            insert(blueprint_tables.templates).values({**template, "id": "t-2", "resolution_key": "l"})
        )
    assert catalog.peek() == before + 1
    upgrade(settings)
    with db.write() as session:
        session.execute(delete(blueprint_tables.templates))
    assert catalog.peek() == before + 1


def test_the_change_logs_downgrade_to_plain_triggers_and_come_back_with_an_upgrade(
    settings: Settings,
) -> None:
    upgrade(settings)
    db = database_for(settings)
    with db.engine.connect() as connection:
        for revision in ("distribution_0005", "configtree_0002", "bus_0006", "policy_0002"):
            command.downgrade(alembic_config(connection), revision)
        connection.commit()
    assert not [name for name in inspect(db.engine).get_table_names() if name.endswith("_changes")]
    tree = Generation(db, configtree_tables.generations, configtree_tables.TREE_SCOPE)
    before = tree.peek()
    with db.write() as session:  # the plain triggers again: the generation still moves
        session.execute(insert(configtree_tables.containers).values(name="m:c", document="{}"))
    assert tree.peek() == before + 1

    upgrade(settings)
    with db.write() as session:
        session.execute(delete(configtree_tables.containers))
    with db.read() as session:
        recorded = session.execute(
            select(configtree_tables.changes.c.generation, configtree_tables.changes.c.object_key)
        )
        assert list(recorded) == [(before + 2, None)]
