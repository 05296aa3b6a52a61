"""Feed endpoint passwords through real HTTP (issue 23): stored only as argon2id hashes, never
answered, kept when an update leaves them out, refused at once when changed; no password in clear
anywhere in the database, also after the migration that hashes the ones stored before."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import sqlalchemy as sa
from alembic import command

from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.store.migrate import alembic_config, upgrade

from ..conftest import RunningService, ServiceStarter
from ..support.distribution_calls import (
    FEED_TYPE,
    PUBLISHER,
    authorization_with,
    create_feed,
    create_subscription,
    feed_document,
    owner_headers,
    publish,
)

HEADERS = {**owner_headers(), "Content-Type": FEED_TYPE}


def put_feed(client: httpx.Client, feed_id: int, document: dict[str, Any]) -> httpx.Response:
    return client.put(f"/feed/{feed_id}", json=document, headers=HEADERS)


def test_answers_never_show_a_password_and_an_update_may_leave_it_out(
    client: httpx.Client, service: RunningService
) -> None:
    feed_id, created = create_feed(client)
    assert created["authorization"]["endpoint_ids"] == [{"id": PUBLISHER[0]}]
    read = client.get(f"/feed/{feed_id}", headers=owner_headers()).json()
    assert "password" not in str(read) and PUBLISHER[1] not in str(read)
    assert publish(service.url, feed_id, "a.txt", b"a").status_code == 204

    # What a GET answered can be sent back: the endpoint keeps its password.
    kept = put_feed(client, feed_id, {**read, "description": "read, then written back"})
    assert kept.status_code == 200, kept.text
    assert publish(service.url, feed_id, "b.txt", b"b").status_code == 204

    # An id the feed does not have needs a password; a create needs every one.
    newcomer = authorization_with(endpoint_ids=[{"id": PUBLISHER[0]}, {"id": "newcomer"}])
    refused = put_feed(client, feed_id, feed_document(authorization=newcomer))
    assert (refused.status_code, refused.text) == (400, 'JSONObject["password"] not found.')
    bare = feed_document(name="bare", authorization=authorization_with(endpoint_ids=[{"id": "x"}]))
    assert client.post("/", json=bare, headers=HEADERS).status_code == 400


def test_a_changed_password_is_refused_at_once_and_the_new_one_taken(
    client: httpx.Client, service: RunningService
) -> None:
    feed_id, _ = create_feed(client)
    assert publish(service.url, feed_id, "a.txt", b"a").status_code == 204  # verified, remembered
    changed = authorization_with(endpoint_ids=[{"id": PUBLISHER[0], "password": "changed-pw"}])
    assert put_feed(client, feed_id, feed_document(authorization=changed)).status_code == 200
    assert publish(service.url, feed_id, "b.txt", b"b").status_code == 401
    assert publish(service.url, feed_id, "b.txt", b"b", auth=(PUBLISHER[0], "changed-pw")).status_code == 204
    # Removed: refused too.
    other = authorization_with(endpoint_ids=[{"id": "other", "password": "other-pw"}])
    assert put_feed(client, feed_id, feed_document(authorization=other)).status_code == 200
    assert publish(service.url, feed_id, "c.txt", b"c", auth=(PUBLISHER[0], "changed-pw")).status_code == 401
    assert publish(service.url, feed_id, "c.txt", b"c", auth=("other", "other-pw")).status_code == 204


def database_text(settings: Settings) -> str:
    """Every row of every table of the database, as text."""
    database = database_for(settings)
    found = []
    with database.engine.connect() as connection:
        inspector = sa.inspect(connection)
        for table in inspector.get_table_names():
            columns: list[sa.ColumnClause[Any]] = [sa.column(c["name"]) for c in inspector.get_columns(table)]
            rows = connection.execute(sa.select(*columns).select_from(sa.table(table))).all()
            found.append(f"{table}: {rows!r}")
    return "\n".join(found)


def secret_forms(user: str, password: str) -> list[str]:
    return [password, base64.b64encode(f"{user}:{password}".encode()).decode()]


def stored_endpoints(settings: Settings) -> dict[int, list[dict[str, str]]]:
    database = database_for(settings)
    with database.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT id, endpoint_ids FROM distribution_feeds")).all()
    return {int(feed_id): _json(endpoints) for feed_id, endpoints in rows}


def _json(value: Any) -> list[dict[str, str]]:
    """A JSON column as SQLite (text) or PostgreSQL (decoded) gives it back."""
    decoded: list[dict[str, str]] = json.loads(value) if isinstance(value, str) else value
    return decoded


def test_no_endpoint_password_is_stored_in_clear(client: httpx.Client, service: RunningService) -> None:
    secrets = {"pub-one": "Clear-Pw-One-91", "pub-two": "Clear-Pw-Two-92", "pub-three": "Clear-Pw-Three-93"}
    first, _ = create_feed(
        client,
        name="one",
        authorization=authorization_with(endpoint_ids=[{"id": "pub-one", "password": secrets["pub-one"]}]),
    )
    create_subscription(client, first)
    second, _ = create_feed(
        client,
        name="two",
        authorization=authorization_with(endpoint_ids=[{"id": "pub-two", "password": "Old-Pw-94"}]),
    )
    changed = authorization_with(endpoint_ids=[{"id": "pub-two", "password": secrets["pub-two"]}])
    assert put_feed(client, second, feed_document(name="two", authorization=changed)).status_code == 200
    third, _ = create_feed(
        client,
        name="three",
        authorization=authorization_with(
            endpoint_ids=[{"id": "pub-three", "password": secrets["pub-three"]}]
        ),
    )
    assert client.delete(f"/feed/{third}", headers=owner_headers()).status_code == 204
    for feed_id, user in ((first, "pub-one"), (second, "pub-two")):
        assert publish(service.url, feed_id, "f.txt", b"x", auth=(user, secrets[user])).status_code == 204

    everything = database_text(service.settings)
    # The scan sees the feeds' rows (their endpoint ids are there), not their passwords.
    assert all(user in everything for user in secrets)
    for user, password in [*secrets.items(), ("pub-two", "Old-Pw-94")]:
        for form in secret_forms(user, password):
            assert form not in everything, f"{user}'s password is stored in clear"
    for endpoints in stored_endpoints(service.settings).values():
        assert all(entry["password_hash"].startswith("$argon2id$") for entry in endpoints)
        assert all("password" not in entry for entry in endpoints)


def test_the_migration_hashes_the_passwords_stored_before(
    settings: Settings, start_service: ServiceStarter
) -> None:
    upgrade(settings)
    database = database_for(settings)
    with database.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "distribution_0004")
        connection.commit()
    feeds = sa.table(
        "distribution_feeds",
        *(sa.column(name) for name in ("id", "name", "version", "description", "business_description")),
        *(sa.column(name) for name in ("classification", "suspend", "groupid")),
        *(
            sa.column(name)
            for name in ("authz_instance", "publisher", "deleted", "created_ms", "modified_ms")
        ),
        sa.column("endpoint_ids", sa.JSON),
        sa.column("endpoint_addrs", sa.JSON),
    )
    common = {
        "version": "1",
        "description": "",
        "business_description": "",
        "classification": "c",
        "endpoint_addrs": [],
        "suspend": False,
        "groupid": 0,
        "authz_instance": "legacy",
        "publisher": "opsteam",
        "created_ms": 1,
        "modified_ms": 1,
    }
    with database.engine.begin() as connection:
        connection.execute(
            sa.insert(feeds),
            [
                {
                    **common,
                    "id": 1,
                    "name": "old",
                    "deleted": False,
                    "endpoint_ids": [{"id": "pub", "password": "Before-Pw-95"}],
                },
                {
                    **common,
                    "id": 2,
                    "name": "gone",
                    "deleted": True,
                    "endpoint_ids": [{"id": "pub", "password": "Gone-Pw-96"}],
                },
            ],
        )
        connection.execute(sa.text("UPDATE distribution_counters SET value = 2 WHERE name = 'feed'"))

    service = start_service("distribution", settings)  # upgrades to the newest revision first
    everything = database_text(settings)
    for password in ("Before-Pw-95", "Gone-Pw-96"):
        assert password not in everything
    stored = stored_endpoints(settings)
    assert stored[1][0]["password_hash"].startswith("$argon2id$")
    assert stored[2] == [{"id": "pub", "password_hash": "!"}]  # a deleted feed's: dropped
    assert publish(service.url, 1, "a.txt", b"a", auth=("pub", "Before-Pw-95")).status_code == 204
    assert publish(service.url, 1, "a.txt", b"a", auth=("pub", "wrong")).status_code == 401
    with service.client() as admin:
        assert admin.get("/feed/1", headers=owner_headers()).json()["authorization"]["endpoint_ids"] == [
            {"id": "pub"}
        ]
