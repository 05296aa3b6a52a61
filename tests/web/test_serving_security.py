"""What ``netplatform serve`` itself decides: which proxies' forwarded headers it believes, and the
warning about a well-known administrator password."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from ..support.distribution_calls import authorization_with, create_feed, publish
from ..support.servers import ServeProcess, free_port

ADMIN = ("admin", "a-long-random-admin-password")


@contextmanager
def serving(tmp_path: Path, only: str, users: str, **env: str) -> Iterator[tuple[str, ServeProcess]]:
    port = free_port()
    settings = {
        f"NETPLATFORM_{only.upper()}_PORT": str(port),
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_USERS": users,
        "NETPLATFORM_ACCESS_LOG": "false",
        **env,
    }
    process = ServeProcess(settings, ["--only", only], tmp_path / "serve.log").start(wait_ports=[port])
    try:
        yield f"http://127.0.0.1:{port}", process
    finally:
        process.stop()


@pytest.mark.parametrize(("trusted", "status"), [(None, 403), ("127.0.0.1", 204), ("127.0.0.0/8", 204)])
def test_forwarded_for_counts_only_from_a_trusted_proxy(
    tmp_path: Path, trusted: str | None, status: int
) -> None:
    env = {"NETPLATFORM_TRUSTED_PROXIES": trusted} if trusted else {}
    with serving(tmp_path, "distribution", ":".join(ADMIN), **env) as (url, _):
        with httpx.Client(base_url=url, auth=ADMIN, timeout=30) as client:
            feed, _ = create_feed(client, authorization=authorization_with(endpoint_addrs=["10.9.9.9"]))
        # A publisher on this host claims the one address the feed admits.
        claimed = publish(url, feed, "a.txt", b"1", headers={"X-Forwarded-For": "10.9.9.9"})
        assert claimed.status_code == status, claimed.text


@pytest.mark.parametrize(
    ("users", "warned"),
    [
        ("admin:admin,bob:bob-pw:policy.reader", True),
        ("root:ChangeMe,bob:bob-pw", True),
        ("ops:ops", True),
        ("ops:a-long-random-password,admin:admin", False),
    ],
)
def test_a_well_known_administrator_password_is_warned_of(tmp_path: Path, users: str, warned: bool) -> None:
    with serving(tmp_path, "policy", users) as (url, process):
        assert httpx.get(f"{url}/health").status_code == 200
    administrator = users.split(":", 1)[0]
    warning = (
        f"the bootstrap administrator {administrator!r} (the first NETPLATFORM_USERS entry) has a well-known"
    )
    assert (warning in process.log()) is warned, process.log()
