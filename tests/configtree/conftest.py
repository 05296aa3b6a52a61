"""One config tree service per test module (starting one per test would dominate the suite's time).

Each test gets a client on a tree that is empty again: the ``client`` fixture deletes the root
before handing it over.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from netplatform.configtree import create_app
from netplatform.settings import Settings
from netplatform.store.db import forget_database

from ..conftest import ADMIN, TEST_USERS
from ..support.configtree_paths import ROOT
from ..support.databases import migrate, temporary_database
from ..support.servers import LiveServer, http_client


@pytest.fixture(scope="module")
def config_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with temporary_database() as database_url:
        settings = Settings(
            data_dir=tmp_path_factory.mktemp("configtree"),
            database_url=database_url,
            users=TEST_USERS,
            access_log=False,
            instance_name="test",
        )
        migrate(settings)
        with LiveServer(create_app(settings)) as server:
            yield server.url
        forget_database(settings)


@pytest.fixture
def client(config_url: str) -> Iterator[httpx.Client]:
    with http_client(config_url, auth=ADMIN) as session:
        assert session.delete(ROOT).status_code in (204, 404)
        yield session
