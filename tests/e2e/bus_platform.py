"""One ``netplatform serve`` running the bus controller, the message router and the authz service
over one database, for the end-to-end tests of bus provisioning (test_bus_router, test_bus_authz)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from ..support.servers import ServeProcess, free_port

SERVICES = ("bus", "router", "authz")


class Platform:
    def __init__(self, ports: dict[str, int]) -> None:
        self.bus_url, self.router_url, self.authz_url = (
            f"http://127.0.0.1:{ports[name]}" for name in SERVICES
        )
        self.router_port = ports["router"]


@contextmanager
def bus_platform(tmp_path: Path, database_url: str | None, users: str, instance: str) -> Iterator[Platform]:
    ports = {name: free_port() for name in SERVICES}
    env = {
        **{f"NETPLATFORM_{name.upper()}_PORT": str(port) for name, port in ports.items()},
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_USERS": users,
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_INSTANCE_NAME": instance,
    }
    if database_url:
        env["NETPLATFORM_DATABASE_URL"] = database_url
    args = [arg for name in SERVICES for arg in ("--only", name)]
    process = ServeProcess(env, args, tmp_path / "serve.log")
    process.start(wait_ports=list(ports.values()))
    try:
        yield Platform(ports)
    finally:
        process.stop()


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    return response.json() if response.content else None


def within(seconds: float, check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not within {seconds} s"
        time.sleep(0.05)
