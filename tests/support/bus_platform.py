"""One ``netplatform serve`` running the bus controller, the message router and the authz service
over one database, for the end-to-end tests of bus provisioning (test_bus_router, test_bus_authz)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .servers import ServeProcess, free_port

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
