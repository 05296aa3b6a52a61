"""Migration router_0005 (issue 36) on a database an earlier version wrote: ACL entries become
roles where a role of that name is known to the database (built in, or stored through authz),
identities otherwise; the stored mirror credential is gone; and back down again."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.store.migrate import alembic_config, upgrade

from ..conftest import ServiceStarter
from ..support.answers import ok

TOPIC = "org.example.before.events"


def migrate_to(settings: Settings, revision: str) -> None:
    with database_for(settings).engine.connect() as connection:
        command.downgrade(alembic_config(connection), revision)
        connection.commit()


def columns(settings: Settings, table: str) -> set[str]:
    return {column["name"] for column in sa.inspect(database_for(settings).engine).get_columns(table)}


def test_old_entries_become_roles_where_a_role_is_known(
    settings: Settings, start_service: ServiceStarter
) -> None:
    upgrade(settings)
    migrate_to(settings, "router_0004")
    topic = {
        "name": TOPIC,
        "description": "",
        "owner": "alice",
        "txenabled": False,
        "partition_count": 1,
        "replication_count": 1,
        "writer_acl_enabled": False,
        "reader_acl_enabled": True,
        "created_ms": 1,
    }
    entries = [
        {"topic": TOPIC, "kind": "reader", "identity": name} for name in ("alice", "team.x", "platform.node")
    ]
    with database_for(settings).engine.begin() as connection:
        connection.execute(sa.text("INSERT INTO authz_roles (name, description) VALUES ('team.x', '')"))
        connection.execute(sa.table("router_topics", *map(sa.column, topic)).insert(), [topic])
        connection.execute(sa.table("router_acl_entries", *map(sa.column, entries[0])).insert(), entries)
        connection.execute(
            sa.text(
                "INSERT INTO router_mirror_settings (id, admin_topic, source_user, source_password,"
                " updated_ms) VALUES (1, 'org.example.admin', 'admin', 'Before-Secret-77', 1)"
            )
        )
    router = start_service("router", settings)  # upgrades to the newest revision first
    assert not {"source_user", "source_password"} & columns(settings, "router_mirror_settings")
    with database_for(settings).read() as session:
        stored = " ".join(
            str(row) for row in session.execute(sa.text("SELECT * FROM router_mirror_settings"))
        )
    assert "Before-Secret-77" not in stored
    with router.client() as admin:
        acl = ok(admin.get(f"/topics/{TOPIC}"))["readerAcl"]
        assert acl == {"enabled": True, "users": ["alice", "role:platform.node", "role:team.x"]}
        assert ok(admin.get("/internal/mirror-settings"))["configuredAdminTopic"] == "org.example.admin"
    router.server.stop()
    # And down again: one entry per name, the mirror settings' credential columns back (empty).
    migrate_to(settings, "router_0004")
    with database_for(settings).read() as session:
        names = sorted(session.execute(sa.text("SELECT identity FROM router_acl_entries")).scalars())
    assert names == ["alice", "platform.node", "team.x"]
    assert {"source_user", "source_password"} <= columns(settings, "router_mirror_settings")
