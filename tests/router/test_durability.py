"""A group's position survives a restart; retention removes old messages (embedded engine)."""

from __future__ import annotations

import time
from pathlib import Path

from netplatform.router import create_app
from netplatform.store.db import forget_database

from ..support.databases import migrate
from ..support.router_calls import drain, publish
from ..support.servers import LiveServer, http_client
from .conftest import ADMIN, delete_every_topic, router_settings, topic_name


def test_a_group_continues_where_it_stopped_after_a_restart(
    engine: str, tmp_path: Path, database_url: str | None
) -> None:
    settings = router_settings(engine, tmp_path / "var", database_url)
    migrate(settings)
    name = topic_name()
    sent = [f"m{i}" for i in range(10)]
    with LiveServer(create_app(settings)) as first, http_client(first.url, auth=ADMIN) as client:
        assert client.post("/topics/create", json={"topicName": name}).status_code == 200
        publish(client, name, sent)
        assert client.get(f"/events/{name}/g/m", params={"limit": 4, "timeout": 0}).json() == sent[:4]
    try:
        with LiveServer(create_app(settings)) as second, http_client(second.url, auth=ADMIN) as client:
            publish(client, name, ["after restart"])
            assert drain(client, name, "g") == [*sent[4:], "after restart"]
            assert drain(client, name, "fresh") == [*sent, "after restart"]
            delete_every_topic(second.url)
    finally:
        forget_database(settings)


def test_messages_older_than_the_retention_are_removed(tmp_path: Path, database_url: str | None) -> None:
    settings = router_settings("embedded", tmp_path / "var", database_url, router_retention_s=1.0)
    migrate(settings)
    name = topic_name()
    try:
        with LiveServer(create_app(settings)) as server, http_client(server.url, auth=ADMIN) as client:
            assert client.post("/topics/create", json={"topicName": name}).status_code == 200
            publish(client, name, ["old"])
            # A fixed wait on purpose: the first message outlives the retention (1 s).
            time.sleep(2.5)
            publish(client, name, ["new"])
            assert drain(client, name, "g") == ["new"]
    finally:
        forget_database(settings)
