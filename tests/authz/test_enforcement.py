"""What the authz service changes, every service enforces within 2 seconds: on each instance
over the same database, and through the answers the kernel replays."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from .conftest import ADMIN, AUTHZ_USERS, POLICY_WRITER, app_of, client_as, new_identity, within

POLICY_TYPES = "/policy/api/v1/policytypes"


@pytest.fixture
def authz(start_service: ServiceStarter) -> RunningService:
    return start_service("authz")


@pytest.fixture
def admin(authz: RunningService) -> Iterator[httpx.Client]:
    with authz.client(auth=ADMIN) as client:
        yield client


@pytest.fixture
def policies(start_service: ServiceStarter, make_settings: SettingsFactory) -> list[RunningService]:
    """Two policy instances over the authz service's database, each with a decision cache of its
    own (a different user list is a different directory in this process, as another process is)."""
    second = make_settings(users=AUTHZ_USERS + ",spare:spare-pw", instance_name="test-2")
    return [start_service("policy"), start_service("policy", second)]


def replay_hits(service: RunningService) -> int:
    return int(app_of(service).state.replays.hits)


def statuses(clients: list[httpx.Client], method: str = "GET") -> list[int]:
    return [client.request(method, POLICY_TYPES).status_code for client in clients]


def test_a_membership_opens_reads_and_its_removal_closes_them_on_every_instance(
    admin: httpx.Client, policies: list[RunningService]
) -> None:
    identity, password = new_identity(admin)
    clients = [client_as(policy, (identity, password)) for policy in policies]
    try:
        # Authenticated everywhere, allowed nothing.
        assert statuses(clients) == [403, 403]

        ok(admin.post("/authz/userRole", json={"user": identity, "role": "policy.reader"}), 201)
        within(lambda: statuses(clients), [200, 200])
        assert statuses(clients, "POST") == [403, 403]  # a reader writes nothing

        # The same GET again: the answer each instance keeps and replays to this caller.
        before = [replay_hits(policy) for policy in policies]
        assert statuses(clients) == [200, 200]
        after = [replay_hits(policy) for policy in policies]
        assert all(hits > earlier for hits, earlier in zip(after, before, strict=True)), (before, after)

        ok(admin.delete(f"/authz/userRole/{identity}/policy.reader"))
        within(lambda: statuses(clients), [403, 403])
        assert statuses(clients) == [403, 403]  # and it stays so
    finally:
        for client in clients:
            client.close()


def test_a_changed_password_or_deleted_identity_stops_working_on_every_instance(
    admin: httpx.Client, policies: list[RunningService]
) -> None:
    identity, old = new_identity(admin)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": "policy.reader"}), 201)
    with_old = [client_as(policy, (identity, old)) for policy in policies]
    with_new = [client_as(policy, (identity, "a-new-password")) for policy in policies]
    try:
        within(lambda: statuses(with_old), [200, 200])
        ok(admin.put(f"/authn/cred/{identity}", json={"password": "a-new-password"}))
        within(lambda: statuses(with_old), [401, 401])
        assert statuses(with_new) == [200, 200]

        ok(admin.delete(f"/authn/cred/{identity}"))
        within(lambda: statuses(with_new), [401, 401])
    finally:
        for client in (*with_old, *with_new):
            client.close()


def test_a_policy_writer_writes_no_bus(
    admin: httpx.Client, start_service: ServiceStarter, policies: list[RunningService]
) -> None:
    bus = start_service("bus")
    identity, password = new_identity(admin)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": "policy.writer"}), 201)
    cluster = {"svcLocationName": "edge-1", "fqdn": "127.0.0.1"}
    for auth in (POLICY_WRITER, (identity, password)):
        with client_as(bus, auth) as client:
            refusal = client.post("/mr_clusters", json=cluster)
            assert refusal.status_code == 403, refusal.text
            # Registering a cluster is an administrator's (issue 36): platform.bus.admin.
            assert (
                f"User {auth[0]} does not have permission platform.bus.admin|mr_clusters|write"
                in refusal.text
            )
            assert client.get("/mr_clusters").status_code == 403
        with client_as(policies[0], auth) as client:
            within(lambda: client.get(POLICY_TYPES).status_code, 200)
    with client_as(bus, ADMIN) as client:
        assert client.get("/mr_clusters").status_code == 200
