"""Migration blueprints_0006: resolved values are indexed by resource only when they have one, and
a lookup by resolution key goes through the unique key's index (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from alembic import command
from sqlalchemy import Engine, func, insert, inspect, select, text

from netplatform.blueprints import tables
from netplatform.blueprints.repository.resolved_resources import ResourceQuery
from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.store.migrate import alembic_config, upgrade

BY_KEY = "ix_blueprints_resources_by_key"
BY_RESOURCE = "ix_blueprints_resources_by_resource"


def _value(n: int, **key: str) -> dict[str, Any]:
    return {
        "id": f"v-{n}",
        "blueprint_name": "bp",
        "blueprint_version": "1.0.0",
        "artifact_name": "config",
        "name": f"name-{n}",
        "value": "x",
        "status": "success",
        "resolution_key": "",
        "resource_type": "",
        "resource_id": "",
        "occurrence": 1,
        "created_date": datetime(2026, 12, 7),
        **key,
    }


def _indexes(engine: Engine) -> dict[str, dict[str, Any]]:
    return {index["name"] or "": dict(index) for index in inspect(engine).get_indexes(tables.resources.name)}


def _where(index: dict[str, Any]) -> str | None:
    options = index.get("dialect_options", {})
    found = options.get("postgresql_where", options.get("sqlite_where"))
    return None if found is None else str(found)


def _plan(engine: Engine, sql: str) -> str:
    """The plan of ``sql``, an index preferred to a scan wherever one can serve (a test's table
    is too small for PostgreSQL to prefer one)."""
    explain = "EXPLAIN QUERY PLAN " if engine.dialect.name == "sqlite" else "EXPLAIN "
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SET LOCAL enable_seqscan = off"))
            connection.execute(text("SET LOCAL enable_bitmapscan = off"))
        return "\n".join(str(row[-1]) for row in connection.execute(text(explain + sql)))


def test_values_by_key_are_not_indexed_by_resource_and_a_downgrade_restores_both_indexes(
    settings: Settings,
) -> None:
    upgrade(settings)
    db = database_for(settings)
    with db.write() as session:
        session.execute(insert(tables.resources), [_value(n, resolution_key=f"k-{n}") for n in range(200)])
        session.execute(insert(tables.resources), [_value(1000, resource_type="vnf", resource_id="v1")])
    indexes = _indexes(db.engine)
    assert BY_KEY not in indexes
    assert "resource_type" in (_where(indexes[BY_RESOURCE]) or "")
    by_key = (
        "SELECT id FROM blueprints_resources WHERE blueprint_name = 'bp' AND blueprint_version = '1.0.0'"
        " AND artifact_name = 'config' AND resolution_key = 'k-7' AND resource_type = ''"
        " AND resource_id = '' AND occurrence = 1"
    )
    assert BY_RESOURCE not in _plan(db.engine, by_key)
    query = ResourceQuery("bp", "1.0.0", resource_type="vnf", resource_id="v1")
    by_resource = select(tables.resources.c.id).where(*query.conditions())
    with db.engine.connect() as connection:
        sql = str(by_resource.compile(connection, compile_kwargs={"literal_binds": True}))
    assert BY_RESOURCE in _plan(db.engine, sql)

    with db.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "blueprints_0005")
        connection.commit()
    indexes = _indexes(db.engine)
    assert _where(indexes[BY_RESOURCE]) is None and BY_KEY in indexes
    with db.read() as session:
        assert session.execute(select(func.count()).select_from(tables.resources)).scalar() == 201
    upgrade(settings)
    assert BY_KEY not in _indexes(db.engine)
