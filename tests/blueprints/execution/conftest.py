"""Fixtures of the execution suite: a catalog, and a catalog whose REST sources read a config tree."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ...conftest import RunningService, ServiceStarter, SettingsFactory
from ...support.cbas import PROCESS


def save(client: httpx.Client, archive: bytes) -> None:
    answer = client.post("/api/v1/blueprint-model", files={"file": ("cba.zip", archive, "application/zip")})
    assert answer.status_code == 200, answer.text


def run(client: httpx.Client, request: dict[str, Any], status: int = 200) -> dict[str, Any]:
    answer = client.post(PROCESS, json=request)
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    assert body["status"]["code"] == status
    return body


@dataclass
class TreeAndCatalog:
    tree: httpx.Client
    catalog: httpx.Client


@pytest.fixture
def tree_and_catalog(
    start_service: ServiceStarter, make_settings: SettingsFactory
) -> Iterator[TreeAndCatalog]:
    """A config tree, and a catalog reading it as ``sdnc`` and as the operator's ``inventory``."""
    tree: RunningService = start_service("configtree")
    with_auth = tree.url.replace("http://", "http://admin:admin@")
    settings = make_settings(execution_sdnc_url=tree.url, execution_rest_sources=f"inventory={with_auth}")
    catalog = start_service("blueprints", settings)
    with tree.client() as tree_client, catalog.client() as catalog_client:
        yield TreeAndCatalog(tree_client, catalog_client)
