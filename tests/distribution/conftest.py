"""Fixtures of the distribution suite: the service on a random port, a client, HTTPS subscribers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from netplatform.settings import Settings

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.receiver import Receiver
from ..support.servers import LiveServer
from ..support.tls import TlsFiles

FAST_DELIVERY: dict[str, Any] = {
    "delivery_retry_initial_s": 0.2,
    "delivery_retry_max_s": 0.4,
    "delivery_poll_s": 0.05,
    "delivery_workers": 3,
    "delivery_connect_timeout_s": 5,
    "delivery_read_timeout_s": 10,
}


class HttpsSubscriber(Receiver):
    """The shared recording HTTPS receiver, served as an ASGI 3 app.

    uvicorn takes a bound-method app for ASGI 2 (its interface guess only recognises plain
    coroutine functions), so the receiver's own server fails at startup; wrapping the method
    in a coroutine function makes the guess right.
    """

    def __init__(self, tls: TlsFiles) -> None:
        super().__init__(tls)
        self.server.sock.close()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await self._app(scope, receive, send)

        self.server = LiveServer(app, ssl=tls.uvicorn_ssl)


@pytest.fixture
def make_subscriber(tls: TlsFiles) -> Iterator[Callable[[], HttpsSubscriber]]:
    started: list[HttpsSubscriber] = []

    def make() -> HttpsSubscriber:
        subscriber = HttpsSubscriber(tls)
        subscriber.start()
        started.append(subscriber)
        return subscriber

    yield make
    for subscriber in started:
        subscriber.stop()


@pytest.fixture
def subscriber(make_subscriber: Callable[[], HttpsSubscriber]) -> HttpsSubscriber:
    return make_subscriber()


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
