"""Fixtures of the distribution suite: the service with fast delivery settings, a client, subscribers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from netplatform.settings import Settings

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.receiver import Receiver
from ..support.tls import TlsFiles

FAST_DELIVERY: dict[str, Any] = {
    "delivery_retry_initial_s": 0.2,
    "delivery_retry_max_s": 0.4,
    "delivery_poll_s": 0.05,
    "delivery_workers": 3,
    "delivery_connect_timeout_s": 5,
    "delivery_read_timeout_s": 10,
}


@pytest.fixture
def make_subscriber(tls: TlsFiles) -> Iterator[Callable[[], Receiver]]:
    """Start recording HTTPS endpoints (trusted through ``tls.ca_bundle``); stopped after the test."""
    started: list[Receiver] = []

    def make() -> Receiver:
        subscriber = Receiver(tls).start()
        started.append(subscriber)
        return subscriber

    yield make
    for subscriber in started:
        subscriber.stop()


@pytest.fixture
def subscriber(receiver: Receiver) -> Receiver:
    """The kernel's recording HTTPS receiver, named for its role here."""
    return receiver


@pytest.fixture
def delivery_settings(make_settings: SettingsFactory, tls: TlsFiles) -> Settings:
    return make_settings(delivery_ca_bundle=tls.ca_bundle, **FAST_DELIVERY)


@pytest.fixture
def service(start_service: ServiceStarter, delivery_settings: Settings) -> RunningService:
    return start_service("distribution", delivery_settings)


@pytest.fixture
def client(service: RunningService) -> Iterator[httpx.Client]:
    with service.client() as http:
        yield http


@pytest.fixture
def start_tuned(start_service: ServiceStarter, delivery_settings: Settings) -> Callable[..., str]:
    """Start the service with some settings changed (``delivery_privileged_reoffer_s=0.5``); its URL."""

    def start(**tuning: Any) -> str:
        return start_service("distribution", delivery_settings.model_copy(update=tuning)).url

    return start
