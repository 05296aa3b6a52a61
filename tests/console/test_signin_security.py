"""Sign-out holds on every console instance and across restarts (it is recorded in the database),
and failed sign-ins are throttled as the APIs throttle failed credentials."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from netplatform.console import create_app
from netplatform.settings import Settings

from ..support.databases import temporary_database
from ..support.servers import LiveServer, ServeProcess, free_port
from .conftest import console_settings
from .test_sessions import csrf_of, signed_in


def test_a_sign_out_holds_on_other_instances_and_after_a_restart(platform: dict[str, str]) -> None:
    settings = console_settings(platform, console_secret="shared-by-the-instances")
    with (
        LiveServer(create_app(settings)) as first,
        LiveServer(create_app(settings)) as second,
        httpx.Client(base_url=first.url) as one,
        httpx.Client(base_url=second.url) as other,
    ):
        token = signed_in(one)
        cookie = one.cookies["np_console"]
        other.cookies.set("np_console", cookie)
        assert other.get("/").status_code == 200  # one session, served by either instance
        assert one.post("/signout", data={"csrf": token}).status_code == 303
        answer = other.get("/")
        assert answer.status_code == 303, "signed out on one instance, the other still served it"
        assert answer.headers["location"].startswith("/signin")
    with LiveServer(create_app(settings)) as restarted, httpx.Client(base_url=restarted.url) as again:
        again.cookies.set("np_console", cookie)
        assert again.get("/").status_code == 303, "a restart brought a signed-out session back"
        # Another session of the same identity is not affected.
        signed_in(again)
        assert again.get("/").status_code == 200


# --- failed sign-ins -------------------------------------------------------------------------------

USERS = "admin:admin,alice:alice-pw"
BOUNDS: dict[str, Any] = {
    "auth_failures_per_client": 3,
    "auth_failures_per_address": 50,
    "auth_failures_per_name": 50,
}


@pytest.fixture(scope="module")
def authz_behind_console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """An authz service that believes the console's X-Forwarded-For (the console runs on
    127.0.0.1: NETPLATFORM_TRUSTED_PROXIES names it), and the store it shares with the console."""
    tmp = tmp_path_factory.mktemp("authz")
    port = free_port()
    with temporary_database() as database_url:
        env = {
            "NETPLATFORM_AUTHZ_PORT": str(port),
            "NETPLATFORM_DATA_DIR": str(tmp / "data"),
            "NETPLATFORM_USERS": USERS,
            "NETPLATFORM_ACCESS_LOG": "false",
            "NETPLATFORM_TRUSTED_PROXIES": "127.0.0.1",
            **{f"NETPLATFORM_{name.upper()}": str(value) for name, value in BOUNDS.items()},
            **({"NETPLATFORM_DATABASE_URL": database_url} if database_url else {}),
        }
        process = ServeProcess(env, ["--only", "authz"], tmp / "serve.log").start(wait_ports=[port])
        try:
            yield {"url": f"http://127.0.0.1:{port}", "data_dir": tmp / "data", "database_url": database_url}
        finally:
            process.stop()


@contextmanager
def browser(console: str, address: str) -> Iterator[httpx.Client]:
    """A client of the console from ``address`` (a loopback address)."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=console, transport=transport, timeout=30) as client:
        yield client


def sign_in(client: httpx.Client, user: str, password: str) -> httpx.Response:
    form = client.get("/signin")
    return client.post("/signin", data={"csrf": csrf_of(form), "user": user, "password": password})


def test_failed_sign_ins_are_throttled_and_the_user_signs_in_from_elsewhere(
    authz_behind_console: dict[str, Any],
) -> None:
    settings = Settings(
        users=USERS,
        console_api_urls=f"authz={authz_behind_console['url']}",
        access_log=False,
        data_dir=authz_behind_console["data_dir"],
        database_url=authz_behind_console["database_url"],
        **BOUNDS,
    )
    with LiveServer(create_app(settings)) as console:
        with browser(console.url, "127.0.0.1") as attacker:
            for _ in range(3):
                assert sign_in(attacker, "alice", "guess").status_code == 401
            held = sign_in(attacker, "alice", "alice-pw")
            assert held.status_code == 429 and int(held.headers["Retry-After"]) >= 1
            assert "Too many failed sign-ins" in held.text
            assert attacker.get("/").status_code == 303
        with browser(console.url, "127.0.0.2") as alice:
            assert sign_in(alice, "alice", "alice-pw").status_code == 303
            assert alice.get("/").status_code == 200
