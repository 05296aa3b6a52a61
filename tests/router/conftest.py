"""Fixtures of the message-router suite: live routers on each engine, users with roles, topic names.

Roles (issue 23): admin, the first user, holds platform.admin (a router admin); alice holds
router.writer (she creates topics) besides the roles her ACL tests name; bob holds none; node
holds platform.node (the internal routes of mirror agents). Every router of a test holds the one
test platform key, so each accepts the others' mirror agents (svc.mirror).

Every API test runs on both engines: ``embedded`` on this suite's database, and ``jetstream``
against a NATS server (NETPLATFORM_TEST_NATS_URL, else nats://127.0.0.1:4222 when something
answers there, else skipped; `.ci/nats` starts one). Topic names are unique per test, so tests
share one router per module (and one NATS server) without meeting; the topics are deleted
afterwards so the NATS server does not fill up.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from netplatform.router import create_app
from netplatform.settings import Settings
from netplatform.store.db import forget_database

from ..support.databases import migrate, temporary_database
from ..support.keys import TEST_SECRET_KEY
from ..support.required import unavailable
from ..support.servers import LiveServer, http_client

NATS_URL_ENV = "NETPLATFORM_TEST_NATS_URL"
DEFAULT_NATS_URL = "nats://127.0.0.1:4222"
ENGINES = ["embedded", "jetstream"]

# admin is the first user: the router admin. alice publishes through a role, carol consumes.
ROUTER_USERS = (
    "admin:admin,alice:alice-pw:publishers|audit|router.writer,bob:bob-pw,"
    "carol:carol-pw:subscribers,node:node-pw:platform.node"
)
ADMIN = ("admin", "admin")
ALICE = ("alice", "alice-pw")
BOB = ("bob", "bob-pw")
CAROL = ("carol", "carol-pw")
NODE = ("node", "node-pw")


def _answers(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 4222), timeout=2):
            return True
    except OSError:
        return False


def nats_url_or_skip() -> str:
    url = os.environ.get(NATS_URL_ENV)
    if url:
        return url  # asked for explicitly: a server that does not answer is a failure, not a skip
    if not _answers(DEFAULT_NATS_URL):
        unavailable(f"jetstream engine: no NATS server at {DEFAULT_NATS_URL} and {NATS_URL_ENV} unset")
    return DEFAULT_NATS_URL


def router_settings(engine: str, data_dir: Path, database_url: str | None, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "database_url": database_url,
        "users": ROUTER_USERS,
        "access_log": False,
        "instance_name": "test",
        "router_nats_url": nats_url_or_skip() if engine == "jetstream" else None,
        # One platform key for every router of a test: each accepts the others' svc.mirror.
        "secret_key": TEST_SECRET_KEY,
    }
    values.update(overrides)
    return Settings(**values)


@dataclass
class Router:
    url: str
    engine: str

    def client(self, auth: tuple[str, str] | None = ADMIN) -> httpx.Client:
        return http_client(self.url, auth=auth)

    def create_topic(self, owner: tuple[str, str] = ADMIN, **fields: Any) -> str:
        name = topic_name()
        with self.client(owner) as client:
            response = client.post("/topics/create", json={"topicName": name, **fields})
        assert response.status_code == 200, response.text
        return name


def topic_name(suffix: str = "events") -> str:
    return f"org.example.t{uuid.uuid4().hex[:12]}.{suffix}"


def delete_every_topic(url: str) -> None:
    with http_client(url, auth=ADMIN) as client:
        for name in client.get("/topics").json()["topics"]:
            client.delete(f"/topics/{name}")


@pytest.fixture(scope="module", params=ENGINES)
def router(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Router]:
    """One router per module and engine, on a fresh database."""
    with temporary_database() as database_url:
        settings = router_settings(request.param, tmp_path_factory.mktemp("router"), database_url)
        migrate(settings)
        with LiveServer(create_app(settings)) as server:
            yield Router(server.url, request.param)
            delete_every_topic(server.url)
        forget_database(settings)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine name, for tests that start their own routers (restarts, retention)."""
    name: str = request.param
    if name == "jetstream":
        nats_url_or_skip()
    return name


@contextmanager
def live_router(engine: str, data_dir: Path, **overrides: Any) -> Iterator[Router]:
    """A router of a test's own (its own database), for tests that need settings of their own."""
    with temporary_database() as database_url:
        settings = router_settings(engine, data_dir, database_url, **overrides)
        migrate(settings)
        try:
            with LiveServer(create_app(settings)) as server:
                yield Router(server.url, engine)
                delete_every_topic(server.url)
        finally:
            forget_database(settings)
