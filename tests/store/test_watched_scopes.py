"""Generations the database moves itself (``watching``), on SQLite and PostgreSQL.

Services whose writes are spread over many places let triggers move their generation, so a
write path that forgets cannot exist; these tests pin what the triggers do, and that every table
a service declares watched still has them in the head schema (a table rebuilt by a later
migration loses its triggers on SQLite).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from alembic import command
from sqlalchemy import Column, Integer, String, Table, delete, insert, text, update

from netplatform.access import tables as access_tables
from netplatform.blueprints import tables as blueprint_tables
from netplatform.bus import tables as bus_tables
from netplatform.configtree import tables as configtree_tables
from netplatform.distribution import tables as distribution_tables
from netplatform.settings import Settings
from netplatform.store.db import Database, database_for, new_metadata
from netplatform.store.generations import Generation, generations_table
from netplatform.store.migrate import alembic_config, upgrade
from netplatform.store.migrations.watched_scopes import unwatching, watching

WATCHED = [
    (bus_tables.generations, bus_tables.TOPOLOGY_SCOPE, bus_tables.TOPOLOGY_TABLES),
    (
        distribution_tables.generations,
        distribution_tables.PROVISIONING_SCOPE,
        distribution_tables.PROVISIONING_TABLES,
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
