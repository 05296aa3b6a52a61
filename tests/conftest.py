"""Fixtures shared by every suite: settings on a temporary data dir, live services, TLS, receivers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from netplatform.services import create_service_app
from netplatform.settings import Settings
from netplatform.store.db import forget_database

from .support.databases import migrate, temporary_database
from .support.hashing import hash_cheaply
from .support.keys import TEST_SECRET_KEY
from .support.receiver import Receiver
from .support.servers import LiveServer, http_client
from .support.slow import mark_slow
from .support.tls import TlsFiles, make_tls_files

ADMIN = ("admin", "admin")
OPERATOR = ("operator", "op-secret")
TEST_USERS = "admin:admin,operator:op-secret"


def pytest_configure(config: pytest.Config) -> None:
    """Passwords hashed at test cost in this process (tests/support/hashing.py says why)."""
    hash_cheaply()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` marker, given in one place (tests/support/slow.py says which and why)."""
    mark_slow(items)


@pytest.fixture
def database_url() -> Iterator[str | None]:
    with temporary_database() as url:
        yield url


SettingsFactory = Callable[..., Settings]


@pytest.fixture
def make_settings(tmp_path: Path, database_url: str | None) -> Iterator[SettingsFactory]:
    """Build Settings on this test's data dir and database; keyword arguments override fields."""
    made: list[Settings] = []

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "data_dir": tmp_path / "var",
            "database_url": database_url,
            "users": TEST_USERS,
            "access_log": False,
            "instance_name": "test",
            "secret_key": TEST_SECRET_KEY,
        }
        values.update(overrides)
        settings = Settings(**values)
        made.append(settings)
        return settings

    yield make
    for settings in made:
        forget_database(settings)


@pytest.fixture
def settings(make_settings: SettingsFactory) -> Settings:
    return make_settings()


@dataclass
class RunningService:
    name: str
    url: str
    settings: Settings
    server: LiveServer

    def client(self, auth: tuple[str, str] | None = ADMIN, **kwargs: Any) -> httpx.Client:
        return http_client(self.url, auth=auth, **kwargs)


ServiceStarter = Callable[..., RunningService]


@contextmanager
def service_on_fresh_store(name: str, data_dir: Path, users: str = TEST_USERS) -> Iterator[RunningService]:
    """A service on its own database and data dir, for fixtures wider than one test."""
    with temporary_database() as url:
        settings = Settings(
            data_dir=data_dir,
            database_url=url,
            users=users,
            access_log=False,
            instance_name="test",
            secret_key=TEST_SECRET_KEY,
        )
        migrate(settings)
        with LiveServer(create_service_app(name, settings)) as server:
            yield RunningService(name, server.url, settings, server)
        forget_database(settings)


@pytest.fixture
def start_service(settings: Settings) -> Iterator[ServiceStarter]:
    """Start a service app (migrated, on a random port); ``start_service("policy")``."""
    running: list[RunningService] = []

    def start(
        name: str, service_settings: Settings | None = None, also_on: Sequence[str] = ()
    ) -> RunningService:
        chosen = service_settings or settings
        migrate(chosen)
        server = LiveServer(create_service_app(name, chosen), also_on=also_on).start()
        service = RunningService(name, server.url, chosen, server)
        running.append(service)
        return service

    yield start
    for service in reversed(running):
        service.server.stop()


@pytest.fixture(scope="session")
def tls(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_tls_files(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def receiver(tls: TlsFiles) -> Iterator[Receiver]:
    """An HTTPS endpoint (trusted through ``tls.ca_bundle``) that records every request."""
    endpoint = Receiver(tls).start()
    yield endpoint
    endpoint.stop()
