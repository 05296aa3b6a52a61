"""/authz/userRole and the listings: memberships, their expiry, and who may read whose."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from ..conftest import RunningService
from ..support.answers import ok
from .conftest import PLAIN, READER, client_as, new_identity, new_role, refused, within


def members(admin: httpx.Client, role: str) -> list[dict[str, object]]:
    found: list[dict[str, object]] = ok(admin.get(f"/authz/users/role/{role}"))["user"]
    return found


def role_names(admin: httpx.Client, user: str) -> list[str]:
    return [role["name"] for role in ok(admin.get(f"/authz/roles/user/{user}"))["role"]]


def test_a_membership_is_added_listed_and_removed(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    role = new_role(admin)
    added = ok(admin.post("/authz/userRole", json={"user": identity, "role": role}), 201)
    assert added == {"user": identity, "role": role, "expires": None}
    assert members(admin, role) == [{"id": identity, "expires": None, "configured": False}]
    assert role_names(admin, identity) == [role]
    refused(admin.post("/authz/userRole", json={"user": identity, "role": role}), 409, identity, role)

    assert ok(admin.delete(f"/authz/userRole/{identity}/{role}")) == {"user": identity, "role": role}
    assert members(admin, role) == []
    assert role_names(admin, identity) == []
    refused(admin.delete(f"/authz/userRole/{identity}/{role}"), 404, identity)


def test_configured_and_built_in_names_count(admin: httpx.Client) -> None:
    role = new_role(admin)
    # plain is configured (NETPLATFORM_USERS) and holds no role: it may be given one.
    ok(admin.post("/authz/userRole", json={"user": "plain", "role": role}), 201)
    assert role_names(admin, "plain") == [role]
    ok(admin.delete(f"/authz/userRole/plain/{role}"))
    identity, _ = new_identity(admin)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": "bus.reader"}), 201)
    assert {"id": identity, "expires": None, "configured": False} in members(admin, "bus.reader")
    ok(admin.delete(f"/authz/userRole/{identity}/bus.reader"))


def test_memberships_of_unknown_names_are_refused(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    role = new_role(admin)
    refused(admin.post("/authz/userRole", json={"user": "nobody-here", "role": role}), 404, "nobody-here")
    refused(
        admin.post("/authz/userRole", json={"user": identity, "role": "no.such.role"}), 404, "no.such.role"
    )
    refused(admin.post("/authz/userRole", json={"user": identity}), 400)
    refused(admin.post("/authz/userRole", json={"user": identity, "role": "r" * 256}), 400)
    refused(admin.delete(f"/authz/userRole/{identity}/no.such.role"), 404)


def test_configured_memberships_cannot_change_here(admin: httpx.Client) -> None:
    refused(admin.delete("/authz/userRole/admin/platform.admin"), 403, "NETPLATFORM_USERS")
    refused(admin.delete("/authz/userRole/reader/authz.reader"), 403, "NETPLATFORM_USERS")
    refused(
        admin.post("/authz/userRole", json={"user": "reader", "role": "authz.reader"}),
        409,
        "NETPLATFORM_USERS",
    )
    assert {"id": "reader", "expires": None, "configured": True} in members(admin, "authz.reader")


def test_expiry_as_rfc_3339_or_epoch_milliseconds(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    first, second = new_role(admin), new_role(admin)
    ok(
        admin.post(
            "/authz/userRole", json={"user": identity, "role": first, "expires": "2030-01-01T01:00:00+01:00"}
        ),
        201,
    )
    later = datetime(2031, 6, 1, 12, 30, 15, 250000, tzinfo=UTC)
    epoch_ms = int(later.timestamp() * 1000)
    added = ok(
        admin.post("/authz/userRole", json={"user": identity, "role": second, "expires": epoch_ms}), 201
    )
    assert added["expires"] == "2031-06-01T12:30:15.250Z"
    assert members(admin, first) == [
        {"id": identity, "expires": "2030-01-01T00:00:00.000Z", "configured": False}
    ]
    assert members(admin, second) == [
        {"id": identity, "expires": "2031-06-01T12:30:15.250Z", "configured": False}
    ]


@pytest.mark.parametrize(
    "expires",
    [
        "2001-01-01T00:00:00Z",
        1000,
        -5,
        "2030-01-01T00:00:00",  # no offset
        "2030-01-01",
        "next tuesday",
        10**16,
        1.5,
        True,
        [],
    ],
)
def test_a_past_or_malformed_expiry_is_refused(admin: httpx.Client, expires: object) -> None:
    identity, _ = new_identity(admin)
    body = refused(
        admin.post("/authz/userRole", json={"user": identity, "role": new_role(admin), "expires": expires}),
        400,
    )
    assert body["fields"] in ("expires", "Request")


def test_an_expired_membership_grants_nothing_and_may_be_added_again(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    role = new_role(admin)
    ok(
        admin.post(
            "/authz/role/perm", json={"role": role, "perm": {"type": "t", "instance": "i", "action": "a"}}
        ),
        201,
    )
    soon = int(time.time() * 1000) + 600
    ok(admin.post("/authz/userRole", json={"user": identity, "role": role, "expires": soon}), 201)
    assert role_names(admin, identity) == [role]
    none: list[str] = []
    within(lambda: role_names(admin, identity), none, seconds=3)
    assert members(admin, role) == []
    assert ok(admin.get(f"/authz/perms/user/{identity}")) == {"perm": []}
    # Expired, it is added again (201, not a conflict), and removable.
    ok(admin.post("/authz/userRole", json={"user": identity, "role": role}), 201)
    assert role_names(admin, identity) == [role]


def test_permissions_of_an_identity_are_the_union_of_its_roles(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    first, second = new_role(admin), new_role(admin)
    shared = {"type": "app.thing", "instance": "*", "action": "read"}
    own = {"type": "app.other", "instance": ":a:b", "action": "write"}
    for role, granted in ((first, shared), (second, shared), (second, own)):
        ok(admin.post("/authz/role/perm", json={"role": role, "perm": granted}), 201)
    for role in (first, second, "policy.reader"):
        ok(admin.post("/authz/userRole", json={"user": identity, "role": role}), 201)
    policy = {"type": "platform.policy.api", "instance": "*", "action": "read"}
    assert ok(admin.get(f"/authz/perms/user/{identity}")) == {"perm": [own, shared, policy]}
    roles = ok(admin.get(f"/authz/roles/user/{identity}"))["role"]
    assert roles[0] == {
        "name": "policy.reader",
        "description": "Every read of the policy API",
        "perms": [policy],
        "builtin": True,
    }
    assert [role["name"] for role in roles[1:]] == sorted([first, second])
    refused(admin.get("/authz/perms/user/nobody-here"), 404, "nobody-here")
    refused(admin.get("/authz/roles/user/nobody-here"), 404, "nobody-here")
    refused(admin.get("/authz/users/role/no.such.role"), 404, "no.such.role")
    refused(admin.get("/authz/perms/role/no.such.role"), 404, "no.such.role")


def test_configured_members_are_listed(admin: httpx.Client) -> None:
    assert members(admin, "platform.admin")[0] == {"id": "admin", "expires": None, "configured": True}
    assert ok(admin.get("/authz/perms/user/admin")) == {
        "perm": [{"type": "*", "instance": "*", "action": "*"}]
    }


def test_an_identity_reads_its_own_roles_and_no_one_elses(authz: RunningService, admin: httpx.Client) -> None:
    identity, password = new_identity(admin)
    role = new_role(admin)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": role}), 201)
    with client_as(authz, (identity, password)) as itself:
        assert [r["name"] for r in ok(itself.get(f"/authz/roles/user/{identity}"))["role"]] == [role]
        ok(itself.get(f"/authz/perms/user/{identity}"))
        refused(
            itself.get("/authz/roles/user/admin"),
            403,
            f"User {identity} does not have permission platform.authz.api|roles|read",
        )
        refused(itself.get("/authz/perms/user/admin"), 403, "platform.authz.api|perms|read")
        # Refused before the lookup: an unknown identity is not told apart from a known one.
        refused(itself.get("/authz/roles/user/nobody-here"), 403)
    with client_as(authz, PLAIN) as plain:
        ok(plain.get("/authz/roles/user/plain"))
    with client_as(authz, READER) as reader:
        assert [r["name"] for r in ok(reader.get(f"/authz/roles/user/{identity}"))["role"]] == [role]
        ok(reader.get(f"/authz/perms/user/{identity}"))


def test_expiry_is_reported_in_utc(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    role = new_role(admin)
    moment = datetime.now(UTC) + timedelta(days=3)
    text = moment.astimezone(datetime.now().astimezone().tzinfo).isoformat()
    answer = ok(admin.post("/authz/userRole", json={"user": identity, "role": role, "expires": text}), 201)
    assert answer["expires"].endswith("Z")
    assert answer["expires"] == moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def test_a_role_only_configuration_names_is_listed_with_its_members(admin: httpx.Client) -> None:
    assert members(admin, "team.ops") == [{"id": "pw", "expires": None, "configured": True}]
    assert ok(admin.get("/authz/perms/role/team.ops")) == {"perm": []}
    assert role_names(admin, "pw") == ["policy.writer", "team.ops"]
    # It is no stored role: it cannot be granted anything until it is created.
    granted = {"type": "t", "instance": "i", "action": "a"}
    refused(admin.post("/authz/role/perm", json={"role": "team.ops", "perm": granted}), 404, "team.ops")
    refused(admin.delete("/authz/userRole/pw/team.ops"), 403, "NETPLATFORM_USERS")
