"""Fixtures of the distribution suite: the service on a random port and a client for it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter


@pytest.fixture
def service(start_service: ServiceStarter) -> RunningService:
    return start_service("distribution")


@pytest.fixture
def client(service: RunningService) -> Iterator[httpx.Client]:
    with service.client() as http:
        yield http
