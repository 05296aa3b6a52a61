"""Fixtures of the bus controller suite: a running bus controller, initialised or not, a real
message router for its clusters and the real authz service it creates topic roles in.

The router and the authz service run on the same settings and database as the bus controller,
as all three do in one ``netplatform serve``. The router listens on three loopback addresses
(127.0.0.1, 127.0.0.2, 127.0.0.3) so that clusters reach it under different fqdns
(``localhost`` and those addresses) and each cluster keeps its own fqdn and agent names.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from netplatform.router import create_app as create_router
from netplatform.settings import Settings
from netplatform.store.db import forget_database

from ..conftest import TEST_USERS, RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.databases import migrate, temporary_database
from ..support.keys import TEST_SECRET_KEY
from ..support.servers import LiveServer

NS_ROOT = "org.example.bus"
BUS_NAME = "lab1"
BUS_SETTINGS: dict[str, Any] = {
    "busName": BUS_NAME,
    "topicNsRoot": NS_ROOT,
    "drProvUrl": "http://127.0.0.1:9/",
    "bridgeAdminTopic": "org.example.bus.admin",
    "loggingUrl": "",
    "nodeKey": "key",
    "accessKeyOwner": "ops",
    "version": "2",
}


# The identities the suite's clients name (a client is VALID only when its clientIdentity can
# publish or fetch at its router, issue 38): alice holds the role the clients' clientRole names.
CLIENT_USERS = f"{TEST_USERS},alice:alice-pw:r.pub,bob:bob-pw,alice@example:alice-pw"


@pytest.fixture
def settings(make_settings: SettingsFactory) -> Settings:
    return make_settings(users=CLIENT_USERS)


@pytest.fixture
def authz(start_service: ServiceStarter) -> RunningService:
    """The authz service on this test's settings and database."""
    return start_service("authz")


def using(settings: Settings, authz: RunningService) -> Settings:
    """The settings of a bus controller that creates its topics' roles in ``authz``."""
    return settings.model_copy(update={"bus_authz_url": authz.url})


@pytest.fixture
def bus(start_service: ServiceStarter, settings: Settings, authz: RunningService) -> Iterator[httpx.Client]:
    """A client of a fresh bus controller (settings not initialised)."""
    service = start_service("bus", using(settings, authz))
    with service.client() as client:
        yield client


ROUTER_ALIASES = ("127.0.0.2", "127.0.0.3")  # loopback addresses the router answers on too

SHORT_AGENT_POLLS: dict[str, Any] = {"router_mirror_poll_ms": 200}
"""For a router that runs mirror agents: their long polls of a router served here are open
requests, which a stopping server waits for; at the default 2 s every such test's teardown
waited about 2 s for them."""


@pytest.fixture
def router(start_service: ServiceStarter) -> RunningService:
    """A message router on this test's settings and database."""
    return start_service("router", also_on=ROUTER_ALIASES)


def at_router(router: RunningService) -> dict[str, Any]:
    """The cluster fields that point a cluster at the router (give it an fqdn that resolves)."""
    return {"topicProtocol": "http", "topicPort": str(router.server.port)}


@pytest.fixture
def ready_bus(bus: httpx.Client) -> httpx.Client:
    """A bus controller with its settings initialised."""
    assert bus.put("/bus", json=BUS_SETTINGS).status_code == 200
    return bus


def api_error(response: httpx.Response, status: int) -> dict[str, Any]:
    """The ApiError body of a response that must have the given status."""
    body: dict[str, Any] = ok(response, status)
    assert body["code"] == status
    assert body["is2xx"] is False
    return body


def site(
    client: httpx.Client, name: str, layer: str, cluster_fqdn: str | None = None, **cluster: Any
) -> None:
    """A site location, and a message-router cluster there when a fqdn is given."""
    ok(client.post("/svcLocations", json={"svcLocationName": name, "svcLayer": layer}))
    if cluster_fqdn:
        ok(client.post("/mr_clusters", json={"svcLocationName": name, "fqdn": cluster_fqdn, **cluster}))


def own_router_settings(data_dir: Path, users: str, database_url: str | None, **overrides: Any) -> Settings:
    """The settings of another cluster's router, on a database of its own (so another router id:
    an agent refuses its own router as a source); it runs the mirror agents the bus tells it of.
    It holds the platform key of the rest of the test: it accepts svc.bus, and its agents' svc.mirror
    is accepted."""
    values: dict[str, Any] = {
        "router_mirror_retry_s": 0.3,
        "secret_key": TEST_SECRET_KEY,
        **SHORT_AGENT_POLLS,
        **overrides,
    }
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        users=users,
        access_log=False,
        instance_name="central",
        **values,
    )


@contextmanager
def router_of_its_own(data_dir: Path, users: str, **overrides: Any) -> Iterator[RunningService]:
    """Another cluster's router, served (see :func:`own_router_settings`)."""
    with temporary_database() as url:
        settings = own_router_settings(data_dir, users, url, **overrides)
        migrate(settings)
        try:
            with LiveServer(create_router(settings)) as server:
                yield RunningService("router", server.url, settings, server)
        finally:
            forget_database(settings)
