"""Grants cannot escalate: an authz writer passes on only what it holds (docs/security.md).

Each writer here is a stored identity holding one role with exactly the permissions the test
names, so what it may do is what those permissions cover, and no more.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from ..conftest import RunningService
from ..support.answers import ok
from .conftest import WRITER, client_as, new_identity, new_role, refused, unique

AUTHZ = "platform.authz.api"
EVERYTHING = {"type": "*", "instance": "*", "action": "*"}


def perm(type_: str, instance: str, action: str) -> dict[str, str]:
    return {"type": type_, "instance": instance, "action": action}


@contextmanager
def holder(
    authz: RunningService, admin: httpx.Client, *perms: dict[str, str]
) -> Iterator[tuple[httpx.Client, str]]:
    """A client of a new identity whose one role (named second) holds exactly ``perms``."""
    role = new_role(admin)
    for granted in perms:
        ok(admin.post("/authz/role/perm", json={"role": role, "perm": granted}), 201)
    identity, password = new_identity(admin)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": role}), 201)
    with client_as(authz, (identity, password)) as client:
        yield client, role


def roles_of(admin: httpx.Client, identity: str) -> list[str]:
    return [role["name"] for role in ok(admin.get(f"/authz/roles/user/{identity}"))["role"]]


# --- the three escalations of issue 36 ----------------------------------------------------------


def test_a_membership_writer_cannot_make_herself_an_administrator(
    authz: RunningService, admin: httpx.Client
) -> None:
    role = new_role(admin)
    ok(admin.post("/authz/role/perm", json={"role": role, "perm": perm(AUTHZ, "userRole", "write")}), 201)
    identity, password = new_identity(admin)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": role}), 201)
    with client_as(authz, (identity, password)) as her:
        body = refused(her.post("/authz/userRole", json={"user": identity, "role": "platform.admin"}), 403)
        assert "platform.admin" in body["message"] and "*|*|*" in body["message"]
        assert body["fields"] == "Authorization"
        # Nor a writer of another service's API, whose permissions she does not hold either.
        refused(her.post("/authz/userRole", json={"user": identity, "role": "bus.writer"}), 403, "bus.writer")
    assert roles_of(admin, identity) == [role]


def test_a_permission_writer_cannot_grant_everything_to_her_own_role(
    authz: RunningService, admin: httpx.Client
) -> None:
    with holder(authz, admin, perm(AUTHZ, "perm", "write")) as (her, own):
        body = refused(her.post("/authz/role/perm", json={"role": own, "perm": EVERYTHING}), 403, "*|*|*")
        assert body["fields"] == "Authorization"
        refused(her.post("/authz/role/perm", json={"role": own, "perm": perm(AUTHZ, "*", "write")}), 403)
    assert ok(admin.get(f"/authz/perms/role/{own}")) == {"perm": [perm(AUTHZ, "perm", "write")]}


def test_a_credential_writer_cannot_take_over_an_administrator(
    authz: RunningService, admin: httpx.Client
) -> None:
    boss, boss_password = new_identity(admin)
    ok(admin.post("/authz/userRole", json={"user": boss, "role": "platform.admin"}), 201)
    with holder(authz, admin, perm(AUTHZ, "cred", "write")) as (her, _):
        refused(her.put(f"/authn/cred/{boss}", json={"password": "mine-now"}), 403, boss, "*|*|*")
        refused(her.delete(f"/authn/cred/{boss}"), 403, boss)
    # The administrator's password is the one it was, and the identity is still there.
    with client_as(authz, (boss, boss_password)) as as_boss:
        ok(as_boss.get("/authz/roles"))
    with client_as(authz, (boss, "mine-now")) as as_her:
        assert as_her.get("/authz/roles").status_code == 401


def test_the_built_in_authz_writer_is_not_an_administrator(
    authz: RunningService, admin: httpx.Client
) -> None:
    with client_as(authz, WRITER) as writer:
        refused(writer.post("/authz/userRole", json={"user": "writer", "role": "platform.admin"}), 403)
        role = ok(writer.post("/authz/role", json={"name": unique("org.test")}), 201)["name"]
        refused(writer.post("/authz/role/perm", json={"role": role, "perm": EVERYTHING}), 403)
        refused(
            writer.post(
                "/authz/role/perm", json={"role": role, "perm": perm("platform.bus.api", "*", "read")}
            ),
            403,
        )


# --- what stays allowed -----------------------------------------------------------------------


def test_an_administrator_still_grants_anything(admin: httpx.Client) -> None:
    role = new_role(admin)
    ok(admin.post("/authz/role/perm", json={"role": role, "perm": EVERYTHING}), 201)
    identity, _ = new_identity(admin)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": "platform.admin"}), 201)
    ok(admin.put(f"/authn/cred/{identity}", json={"password": "rotated"}))
    ok(admin.delete(f"/authz/userRole/{identity}/platform.admin"))
    ok(admin.delete(f"/authz/role/{role}/perm/*/*/*"))


def test_a_writer_passes_on_what_it_holds(authz: RunningService, admin: httpx.Client) -> None:
    with client_as(authz, WRITER) as writer:  # authz.writer: platform.authz.api|*|read,write
        role = ok(writer.post("/authz/role", json={"name": unique("org.test")}), 201)["name"]
        ok(writer.post("/authz/role/perm", json={"role": role, "perm": perm(AUTHZ, "roles", "read")}), 201)
        ok(
            writer.post(
                "/authz/role/perm", json={"role": role, "perm": perm(AUTHZ, "cred,perm", "read,write")}
            ),
            201,
        )
        ok(writer.delete(f"/authz/role/{role}/perm/{AUTHZ}/roles/read"))
        identity, _ = new_identity(admin)
        ok(writer.post("/authz/userRole", json={"user": identity, "role": role}), 201)
        ok(writer.post("/authz/userRole", json={"user": identity, "role": "authz.reader"}), 201)
        # Its rights are within the writer's: its password may be changed, the identity deleted.
        ok(writer.put(f"/authn/cred/{identity}", json={"password": "rotated"}))
        ok(writer.delete(f"/authz/userRole/{identity}/authz.reader"))
        ok(writer.delete(f"/authn/cred/{identity}"))
        ok(writer.delete(f"/authz/role/{role}"))


def test_a_role_without_permissions_takes_members_from_any_membership_writer(
    authz: RunningService, admin: httpx.Client
) -> None:
    # The bus controller's topic roles (org.x.publisher) hold no permission in authz.
    topic_role = new_role(admin)
    member, _ = new_identity(admin)
    with holder(authz, admin, perm(AUTHZ, "userRole", "write")) as (bus_like, _):
        ok(bus_like.post("/authz/userRole", json={"user": member, "role": topic_role}), 201)
        ok(bus_like.delete(f"/authz/userRole/{member}/{topic_role}"))


# --- revoking is bounded the same way -----------------------------------------------------------


def test_a_writer_cannot_revoke_beyond_what_it_holds(authz: RunningService, admin: httpx.Client) -> None:
    role = new_role(admin)
    ok(admin.post("/authz/role/perm", json={"role": role, "perm": EVERYTHING}), 201)
    boss, _ = new_identity(admin)
    ok(admin.post("/authz/userRole", json={"user": boss, "role": "platform.admin"}), 201)
    with client_as(authz, WRITER) as writer:
        refused(writer.delete(f"/authz/role/{role}/perm/*/*/*"), 403, "*|*|*")
        refused(writer.delete(f"/authz/role/{role}"), 403, role)
        refused(writer.delete(f"/authz/userRole/{boss}/platform.admin"), 403, "platform.admin")
    assert "platform.admin" in roles_of(admin, boss)
    assert ok(admin.get(f"/authz/perms/role/{role}")) == {"perm": [EVERYTHING]}


# --- the matching rules read as bounds ------------------------------------------------------------


def test_wildcards_lists_and_keys_are_bounded_by_what_they_could_match(
    authz: RunningService, admin: httpx.Client
) -> None:
    held = (
        perm(AUTHZ, "perm", "write"),
        perm("app.topics", ":org:alarms:*", "read"),
        perm("app.files", "logs*", "read,write"),
    )
    with holder(authz, admin, *held) as (her, _):
        target = new_role(admin)

        def grant(type_: str, instance: str, action: str) -> int:
            body = {"role": target, "perm": perm(type_, instance, action)}
            return her.post("/authz/role/perm", json=body).status_code

        # Within: a narrower key, a longer prefix, a list of items each within, one action of two.
        assert grant("app.topics", ":org:alarms:east", "read") == 201
        assert grant("app.topics", ":org:alarms:east:*", "read") == 201
        assert grant("app.files", "logs-2030*,logs", "write") == 201
        # Beyond: a wider key, a wildcard segment, a regular expression, an item outside the
        # prefix, an action not held, any instance, another type, every type.
        assert grant("app.topics", ":org:*", "read") == 403
        assert grant("app.topics", ":org:*:east", "read") == 403
        assert grant("app.topics", ":org:!.*:east", "read") == 403
        assert grant("app.files", "logs*,audit", "read") == 403
        assert grant("app.topics", ":org:alarms:east", "read,write") == 403
        assert grant("app.files", "*", "read") == 403
        assert grant("app.other", "logs", "read") == 403
        assert grant("*", "logs", "read") == 403
    granted = ok(admin.get(f"/authz/perms/role/{target}"))["perm"]
    assert len(granted) == 3
