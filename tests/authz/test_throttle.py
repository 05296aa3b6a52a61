"""Authentication under attack (docs/security.md): failed attempts throttled by name and address,
the real user still getting in from elsewhere, every name costing one argon2 check, and the
checks on a bounded pool.

Clients choose their source address on loopback (127.0.0.x), so one test has several callers.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.hashing import production_cost

USERS = "admin:admin,alice:alice-pw:authz.reader"
ALICE = ("alice", "alice-pw")
WRONG = ("alice", "not-her-password")


@contextmanager
def caller(service: RunningService, address: str, auth: tuple[str, str] | None) -> Iterator[httpx.Client]:
    """A client whose requests come from ``address`` (a loopback address)."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=service.url, auth=auth, transport=transport, timeout=30) as client:
        yield client


def authz_with(
    make_settings: SettingsFactory, start_service: ServiceStarter, **bounds: int
) -> RunningService:
    return start_service("authz", make_settings(users=USERS, **bounds))


def throttled(response: httpx.Response) -> int:
    """The Retry-After of a 429 in authz's error body."""
    assert response.status_code == 429, (response.status_code, response.text)
    body = response.json()
    assert body["code"] == 429 and "Too many failed authentication attempts" in body["message"], body
    seconds = int(response.headers["Retry-After"])
    assert seconds >= 1
    return seconds


def checks(client: httpx.Client) -> dict[str, float]:
    """The process's password checks by the hash they were made against (from /metrics)."""
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    text = response.text
    found = re.findall(r'^password_checks_total\{against="(\w+)",service="authz"\} (\S+)$', text, re.M)
    return {against: float(count) for against, count in found}


def test_failures_from_one_address_are_throttled_and_the_user_gets_in_from_another(
    make_settings: SettingsFactory, start_service: ServiceStarter, caplog: pytest.LogCaptureFixture
) -> None:
    service = authz_with(make_settings, start_service, auth_failures_per_client=3)
    caplog.set_level(logging.WARNING, logger="netplatform.auth")
    with caller(service, "127.0.0.1", WRONG) as attacker:
        for _ in range(3):
            assert attacker.get("/authz/roles").status_code == 401
        throttled(attacker.get("/authz/roles"))
    # The right password from the throttled address waits too (it is not even checked) ...
    with caller(service, "127.0.0.1", ALICE) as same_place:
        throttled(same_place.get("/authz/roles"))
    # ... while the real user, elsewhere, gets in.
    with caller(service, "127.0.0.2", ALICE) as alice:
        ok(alice.get("/authz/roles"))
    failures = [record.getMessage() for record in caplog.records if record.name == "netplatform.auth"]
    assert len(failures) == 3 and all("'alice' from 127.0.0.1" in line for line in failures), failures
    assert "refused for" in failures[-1]
    assert not any("not-her-password" in line for line in failures)


def test_one_address_guessing_many_names_is_throttled(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = authz_with(make_settings, start_service, auth_failures_per_address=4)
    with caller(service, "127.0.0.1", None) as sprayer:
        for name in ("ann", "bob", "carl", "dora"):
            assert sprayer.get("/authz/roles", auth=(name, "guess")).status_code == 401
        throttled(sprayer.get("/authz/roles", auth=("erin", "guess")))
    with caller(service, "127.0.0.2", ALICE) as alice:
        ok(alice.get("/authz/roles"))


def test_many_addresses_guessing_one_name_spare_where_it_signs_in(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = authz_with(make_settings, start_service, auth_failures_per_client=3, auth_failures_per_name=4)
    with caller(service, "127.0.0.3", ALICE) as usual_place:
        ok(usual_place.get("/authz/roles"))
    for address in ("127.0.0.1", "127.0.0.2"):
        with caller(service, address, WRONG) as attacker:
            for _ in range(2):
                assert attacker.get("/authz/roles").status_code == 401
    # The name's bound is passed: a new address waits, even with the right password ...
    with caller(service, "127.0.0.4", ALICE) as new_place:
        throttled(new_place.get("/authz/roles"))
    # ... the address she signed in from does not (a new client: nothing remembered).
    with caller(service, "127.0.0.3", ALICE) as usual_place:
        ok(usual_place.get("/authz/roles"))


def test_a_success_forgets_the_failures_of_its_name_and_address(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = authz_with(make_settings, start_service, auth_failures_per_client=3)
    with caller(service, "127.0.0.1", None) as client:
        for _ in range(2):
            assert client.get("/authz/roles", auth=WRONG).status_code == 401
        ok(client.get("/authz/roles", auth=ALICE))
        for _ in range(2):  # a typo again: still two tries left, not one
            assert client.get("/authz/roles", auth=("alice", "typo-again")).status_code == 401
        ok(client.get("/authz/roles", auth=("alice", "alice-pw")))


def test_validate_is_throttled_as_sign_ins_are(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = authz_with(make_settings, start_service, auth_failures_per_client=2)
    with caller(service, "127.0.0.1", ("admin", "admin")) as system:
        for _ in range(2):
            assert (
                system.post("/authn/validate", json={"id": "alice", "password": "guess"}).status_code == 403
            )
        throttled(system.post("/authn/validate", json={"id": "alice", "password": "alice-pw"}))
        ok(system.post("/authn/validate", json={"id": "admin", "password": "admin"}))


def test_every_name_costs_one_argon2_check(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = authz_with(make_settings, start_service)
    with caller(service, "127.0.0.1", ("admin", "admin")) as admin:
        ok(admin.post("/authn/cred", json={"id": "bob", "password": "bob-pw"}), 201)
        before = checks(admin)
        for name in ("alice", "bob", "nobody-at-all"):  # configured, stored, unknown
            assert admin.get("/authz/roles", auth=(name, "wrong")).status_code == 401
        after = checks(admin)
    spent = {against: after.get(against, 0) - before.get(against, 0) for against in after}
    assert spent == {"configured": 1, "stored": 1, "absent": 1}


def test_unauthenticated_load_waits_for_a_bounded_pool(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    # Checks at their real cost: at the suite's (microseconds) the pool would never be full.
    with production_cost():
        unauthenticated_load_on_a_bounded_pool(make_settings, start_service)


def unauthenticated_load_on_a_bounded_pool(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = authz_with(make_settings, start_service, auth_check_threads=1, auth_check_queue=1)
    start = threading.Barrier(24)

    def guess(index: int) -> httpx.Response:
        with caller(service, "127.0.0.1", (f"unknown-{index}", "guess")) as client:
            start.wait()
            return client.get("/authz/roles")

    with ThreadPoolExecutor(24) as pool:
        answers = list(pool.map(guess, range(24)))
    statuses = sorted(response.status_code for response in answers)
    busy = [response for response in answers if response.status_code == 503]
    assert set(statuses) <= {401, 503} and busy, statuses
    assert all(response.headers["Retry-After"] == "1" for response in busy)
    with caller(service, "127.0.0.1", ("admin", "admin")) as admin:
        metrics = admin.get("/metrics").text
        checked = checks(admin)
    assert 'password_check_threads{service="authz"} 1.0' in metrics
    # Every 401 took one check, every 503 none: the pool refused what it had no room for.
    assert checked["absent"] == statuses.count(401)
