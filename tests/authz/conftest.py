"""Fixtures of the authz suite: identities with the roles each test needs, a shared authz service
for the endpoint tests, and a poll for "applies within 2 seconds".

``admin`` is the bootstrap administrator (platform.admin); ``reader`` and ``writer`` hold the
authz service's built-in roles; ``plain`` holds no role at all; ``pw`` writes policy only
(and holds ``team.ops``, a role only its entry names).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import httpx
import pytest

from netplatform.settings import Settings

from ..conftest import RunningService, SettingsFactory, service_on_fresh_store
from ..support.answers import ok
from ..support.servers import http_client
from ..support.waiting import wait_until

AUTHZ_USERS = (
    "admin:admin,reader:reader-pw:authz.reader,writer:writer-pw:authz.writer,plain:plain-pw,"
    "pw:pw-pw:policy.writer|team.ops"
)
ADMIN = ("admin", "admin")
READER = ("reader", "reader-pw")
WRITER = ("writer", "writer-pw")
PLAIN = ("plain", "plain-pw")
POLICY_WRITER = ("pw", "pw-pw")

T = TypeVar("T")

# Decisions follow a change on every instance within this (docs/security.md).
PROPAGATION_S = 2.0


@pytest.fixture
def settings(make_settings: SettingsFactory) -> Settings:
    """The suite's users for ``start_service`` (which starts every service on these settings)."""
    return make_settings(users=AUTHZ_USERS)


@pytest.fixture(scope="module")
def authz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    """One authz service per module: tests use names of their own (:func:`unique`)."""
    with service_on_fresh_store("authz", tmp_path_factory.mktemp("authz"), users=AUTHZ_USERS) as service:
        yield service


@pytest.fixture(scope="module")
def admin(authz: RunningService) -> Iterator[httpx.Client]:
    with authz.client(auth=ADMIN) as client:
        yield client


def app_of(service: RunningService) -> Any:
    """The app a live service serves (its state: route table, replay counts)."""
    return service.server.server.config.app


def client_as(service: RunningService, auth: tuple[str, str]) -> httpx.Client:
    return http_client(service.url, auth=auth)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def refused(response: httpx.Response, status: int, *words: str) -> dict[str, Any]:
    """An error answer in the service's body, its message naming ``words``."""
    assert response.status_code == status, (response.request.method, response.request.url, response.text)
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "message", "fields"} and body["code"] == status, body
    for word in words:
        assert word in body["message"], body
    return body


def within(probe: Callable[[], T], expected: T, seconds: float = PROPAGATION_S) -> float:
    """Poll ``probe`` until it answers ``expected``; the seconds it took. Fails, naming the last
    answer, when it still does not after ``seconds`` (counted from the call: the caller makes
    it right after the change was acknowledged)."""
    started = time.monotonic()
    seen: list[T] = []

    def answers() -> bool:
        seen[:] = [probe()]
        return seen[0] == expected

    wait_until(answers, timeout=seconds, what=lambda: f"{expected!r}, not {seen[0]!r}")
    return time.monotonic() - started


def new_identity(admin: httpx.Client, password: str | None = None) -> tuple[str, str]:
    password = password or unique("pass")
    identity = unique("svc") + "@example.org"
    ok(admin.post("/authn/cred", json={"id": identity, "password": password}), 201)
    return identity, password


def new_role(admin: httpx.Client, description: str = "a test role") -> str:
    name = unique("org.test")
    ok(admin.post("/authz/role", json={"name": name, "description": description}), 201)
    return name
