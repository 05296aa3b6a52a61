"""Authorization of the policy API (issue 23), over real HTTP: what each built-in role may do.

A ``policy.reader`` reads everything and writes nothing, a ``policy.writer`` writes, an identity
without roles (or with only other services' roles) is refused even reads. The refusal comes from
the kernel before the handler, so a write sent with no body at all is a 403, not a 400.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import httpx
import pytest

from ..conftest import ADMIN, RunningService, service_on_fresh_store
from ..support.routes import protected_operations
from .conftest import API, error_of, policy, policy_template, policy_type_template

READER = ("reader", "reader-pw")
WRITER = ("writer", "writer-pw")
NOBODY = ("nobody", "nobody-pw")
OUTSIDER = ("outsider", "outsider-pw")
USERS = (
    "admin:admin,reader:reader-pw:policy.reader,writer:writer-pw:policy.writer,"
    "nobody:nobody-pw,outsider:outsider-pw:configtree.writer|blueprints.writer|bus.writer"
)
READ_METHODS = {"GET", "HEAD"}
API_TYPE = "platform.policy.api"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    """One policy service for the module: every test stores under names of its own."""
    with service_on_fresh_store("policy", tmp_path_factory.mktemp("policy-authz"), users=USERS) as running:
        yield running


def operations(service: RunningService) -> list[tuple[str, str]]:
    return protected_operations(service.server)


def is_write(method: str) -> bool:
    # Every POST of the policy API stores something: no POST is a read here.
    return method not in READ_METHODS


def assert_refused(response: httpx.Response, user: str, action: str) -> None:
    """403 in the policy API's own error body, naming the permission the caller lacks."""
    assert response.status_code == 403, response.text
    if response.request.method == "HEAD":
        return  # no body to read
    message = error_of(response)
    assert response.json()["code"] == "FORBIDDEN"
    assert re.fullmatch(
        rf"User {user} does not have permission {re.escape(API_TYPE)}\|[a-z]+\|{action}", message
    ), message


def client(service: RunningService, auth: tuple[str, str]) -> httpx.Client:
    return service.client(auth=auth)


def seed(service: RunningService) -> tuple[str, str]:
    """A policy type and one policy of it, stored by the administrator: names of this test's own."""
    type_name = f"authz.policies.T{uuid.uuid4().hex[:8]}"
    policy_name = f"authz.policy.{uuid.uuid4().hex[:8]}"
    with client(service, ADMIN) as admin:
        assert admin.post(f"{API}/policytypes", json=policy_type_template(type_name)).status_code == 200
        body = policy_template(policy(policy_name, type_name=type_name))
        assert admin.post(f"{API}/policies", json=body).status_code == 200
    return type_name, policy_name


def test_a_reader_gets_200_on_the_reads(service: RunningService) -> None:
    type_name, policy_name = seed(service)
    of_type = f"{API}/policytypes/{type_name}/versions/1.0.0"
    reads = [
        f"{API}/healthcheck",
        f"{API}/statistics",
        f"{API}/policytypes",
        f"{API}/policytypes/{type_name}",
        of_type,
        f"{of_type}/policies",
        f"{of_type}/policies/{policy_name}",
        f"{of_type}/policies/{policy_name}/versions/1.0.0",
        f"{API}/policies",
        f"{API}/policies/{policy_name}/versions/latest",
        f"{API}/nodetemplates",
        "/metrics",
    ]
    with client(service, READER) as reader:
        for path in reads:
            response = reader.get(path)
            assert response.status_code == 200, (path, response.text)


def test_a_reader_passes_every_read_and_is_refused_every_write(service: RunningService) -> None:
    walked = operations(service)
    assert any(is_write(method) for method, _ in walked)
    with client(service, READER) as reader:
        for method, path in walked:
            # No body, no Content-Type: the permission is checked before the body is parsed.
            response = reader.request(method, path)
            if is_write(method):
                assert_refused(response, "reader", "write")
            else:
                assert response.status_code not in (401, 403), (method, path, response.text)


def test_a_refused_write_changes_nothing(service: RunningService) -> None:
    type_name, policy_name = seed(service)
    with client(service, READER) as reader:
        deleted = reader.delete(f"{API}/policies/{policy_name}/versions/1.0.0")
        assert_refused(deleted, "reader", "write")
        assert error_of(deleted).endswith(f"{API_TYPE}|policies|write")
        created = reader.post(f"{API}/policytypes", json=policy_type_template(type_name + "X"))
        assert_refused(created, "reader", "write")
        assert reader.get(f"{API}/policies/{policy_name}/versions/1.0.0").status_code == 200
        assert reader.get(f"{API}/policytypes/{type_name}X").status_code == 404


def test_a_writer_creates_and_deletes(service: RunningService) -> None:
    type_name = f"authz.policies.W{uuid.uuid4().hex[:8]}"
    with client(service, WRITER) as writer:
        created = writer.post(f"{API}/policytypes", json=policy_type_template(type_name))
        assert created.status_code == 200, created.text
        assert type_name in created.json()["policy_types"]
        assert writer.get(f"{API}/policytypes/{type_name}").status_code == 200
        deleted = writer.delete(f"{API}/policytypes/{type_name}/versions/1.0.0")
        assert deleted.status_code == 200, deleted.text


def test_an_identity_without_roles_is_refused_reads_and_writes(service: RunningService) -> None:
    with client(service, NOBODY) as nobody:
        for method, path in operations(service):
            assert_refused(nobody.request(method, path), "nobody", "write" if is_write(method) else "read")


def test_the_roles_of_other_services_grant_nothing_here(service: RunningService) -> None:
    type_name, _ = seed(service)
    with client(service, OUTSIDER) as outsider:
        assert_refused(outsider.get(f"{API}/policytypes"), "outsider", "read")
        created = outsider.post(f"{API}/policytypes", json=policy_type_template(type_name + "Y"))
        assert_refused(created, "outsider", "write")
        deleted = outsider.delete(f"{API}/policytypes/{type_name}/versions/1.0.0")
        assert_refused(deleted, "outsider", "write")
