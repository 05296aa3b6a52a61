"""/authz/role and /authz/role/perm: roles, grants, and the built-in roles that are code."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest

from ..support.answers import ok
from .conftest import new_identity, new_role, refused, unique


def perm(type_: str, instance: str, action: str) -> dict[str, str]:
    return {"type": type_, "instance": instance, "action": action}


def ungrant_url(role: str, granted: dict[str, str]) -> str:
    parts = (granted["type"], granted["instance"], granted["action"])
    return f"/authz/role/{role}/perm/" + "/".join(quote(part, safe="") for part in parts)


def test_a_role_is_created_listed_and_deleted(admin: httpx.Client) -> None:
    name = unique("org.test.role")
    created = ok(admin.post("/authz/role", json={"name": name, "description": "for tests"}), 201)
    assert created == {"name": name, "description": "for tests", "perms": [], "builtin": False}
    listed = ok(admin.get("/authz/roles"))["role"]
    assert created in listed
    assert ok(admin.delete(f"/authz/role/{name}")) == {"name": name}
    assert name not in [role["name"] for role in ok(admin.get("/authz/roles"))["role"]]
    refused(admin.delete(f"/authz/role/{name}"), 404, name)


def test_a_description_is_optional(admin: httpx.Client) -> None:
    name = unique("nodesc")
    assert ok(admin.post("/authz/role", json={"name": name}), 201)["description"] == ""


def test_an_existing_role_is_a_conflict(admin: httpx.Client) -> None:
    name = new_role(admin)
    refused(admin.post("/authz/role", json={"name": name, "description": "again"}), 409, name)
    refused(admin.post("/authz/role", json={"name": "policy.reader"}), 409, "built in")
    refused(admin.post("/authz/role", json={"name": "platform.admin"}), 409, "built in")


@pytest.mark.parametrize(
    "body",
    [
        {"name": ""},
        {"name": "r" * 256},
        {"name": "with space"},
        {"name": "at@sign"},
        {"name": "pipe|role"},
        {"name": "slash/role"},
        {"name": "ok", "description": "d" * 1025},
        {"description": "no name"},
        {"name": 5},
    ],
)
def test_a_malformed_role_is_refused(admin: httpx.Client, body: object) -> None:
    refused(admin.post("/authz/role", json=body), 400)


def test_a_built_in_role_cannot_be_deleted(admin: httpx.Client) -> None:
    for name in ("platform.admin", "platform.node", "authz.writer", "bus.reader"):
        refused(admin.delete(f"/authz/role/{name}"), 403, name, "built in")
    assert "authz.writer" in [role["name"] for role in ok(admin.get("/authz/roles"))["role"]]


def test_deleting_a_role_deletes_its_grants_and_memberships(admin: httpx.Client) -> None:
    role = new_role(admin)
    identity, _ = new_identity(admin)
    ok(admin.post("/authz/role/perm", json={"role": role, "perm": perm("app.thing", "one", "read")}), 201)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": role}), 201)
    ok(admin.delete(f"/authz/role/{role}"))
    assert ok(admin.get(f"/authz/roles/user/{identity}")) == {"role": []}
    assert ok(admin.get(f"/authz/perms/user/{identity}")) == {"perm": []}
    # Created again, the role starts empty: nothing of the old one comes back.
    ok(admin.post("/authz/role", json={"name": role}), 201)
    assert ok(admin.get(f"/authz/perms/role/{role}")) == {"perm": []}
    assert ok(admin.get(f"/authz/users/role/{role}")) == {"user": []}


@pytest.mark.parametrize(
    "granted",
    [
        perm("platform.router.topic", ":topic.a.b", "pub"),
        perm("app.thing", "*", "*"),
        perm("app.thing", ":a/b/c", "read,write"),
        perm("app.thing", ":a:b:*", "sub"),
        perm("app.thing", "with%percent and space", "read"),
        perm("app.x/y", "plain", "read"),
    ],
    ids=["key-form", "stars", "slashes", "open-key", "percent", "slash-in-type"],
)
def test_a_permission_is_granted_listed_and_ungranted(admin: httpx.Client, granted: dict[str, str]) -> None:
    role = new_role(admin)
    answer = ok(admin.post("/authz/role/perm", json={"role": role, "perm": granted}), 201)
    assert answer == {"role": role, "perm": granted}
    assert ok(admin.get(f"/authz/perms/role/{role}")) == {"perm": [granted]}
    refused(admin.post("/authz/role/perm", json={"role": role, "perm": granted}), 409, role)

    assert ok(admin.delete(ungrant_url(role, granted))) == {"role": role, "perm": granted}
    assert ok(admin.get(f"/authz/perms/role/{role}")) == {"perm": []}
    refused(admin.delete(ungrant_url(role, granted)), 404, role)


def test_an_instance_with_a_slash_is_ungranted_through_percent_2f(admin: httpx.Client) -> None:
    role = new_role(admin)
    ok(admin.post("/authz/role/perm", json={"role": role, "perm": perm("t", ":a/b", "read")}), 201)
    ok(admin.post("/authz/role/perm", json={"role": role, "perm": perm("t", ":a", "read")}), 201)
    response = admin.delete(f"/authz/role/{role}/perm/t/%3Aa%2Fb/read")
    assert "%2F" in response.request.url.raw_path.decode()  # the client sent it encoded
    assert ok(response)["perm"] == perm("t", ":a/b", "read")
    # Only that grant went; ":a" stays.
    assert ok(admin.get(f"/authz/perms/role/{role}")) == {"perm": [perm("t", ":a", "read")]}
    # A literal slash is the same instance (the middle segments are the instance).
    ok(admin.post("/authz/role/perm", json={"role": role, "perm": perm("t", ":a/b", "read")}), 201)
    ok(admin.delete(f"/authz/role/{role}/perm/t/:a/b/read"))
    # '*' as an instance or action in the path.
    ok(admin.post("/authz/role/perm", json={"role": role, "perm": perm("t", "*", "*")}), 201)
    ok(admin.delete(f"/authz/role/{role}/perm/t/*/*"))
    refused(admin.delete(f"/authz/role/{role}/perm/t/*/*"), 404)


@pytest.mark.parametrize(
    "granted",
    [
        perm("", "i", "a"),
        perm("t", "", "a"),
        perm("t", "i", ""),
        perm("t|x", "i", "a"),
        perm(" t", "i", "a"),
        perm("t", "i" * 256, "a"),
        {"type": "t", "instance": "i"},
        "t|i|a",
    ],
)
def test_a_malformed_permission_is_refused(admin: httpx.Client, granted: object) -> None:
    role = new_role(admin)
    refused(admin.post("/authz/role/perm", json={"role": role, "perm": granted}), 400)


def test_grants_are_refused_for_unknown_and_built_in_roles(admin: httpx.Client) -> None:
    granted = perm("app.thing", "one", "read")
    refused(
        admin.post("/authz/role/perm", json={"role": "no.such.role", "perm": granted}), 404, "no.such.role"
    )
    refused(admin.post("/authz/role/perm", json={"perm": granted}), 400)
    for name in ("policy.reader", "platform.admin"):
        refused(admin.post("/authz/role/perm", json={"role": name, "perm": granted}), 403, name, "built in")
        refused(admin.delete(f"/authz/role/{name}/perm/platform.policy.api/*/read"), 403, name)
    refused(admin.delete("/authz/role/no.such.role/perm/app.thing/one/read"), 404, "no.such.role")
    refused(admin.delete(f"/authz/role/{new_role(admin)}/perm/t/|bad/read"), 400)


def test_built_in_roles_list_their_permissions(admin: httpx.Client) -> None:
    roles = ok(admin.get("/authz/roles"))["role"]
    builtin = [role for role in roles if role["builtin"]]
    assert roles[: len(builtin)] == builtin  # built-in roles first
    by_name = {role["name"]: role for role in roles}
    assert by_name["platform.admin"]["perms"] == [perm("*", "*", "*")]
    assert by_name["policy.reader"]["perms"] == [perm("platform.policy.api", "*", "read")]
    assert by_name["policy.writer"]["perms"] == [perm("platform.policy.api", "*", "read,write")]
    assert {p["type"] for p in by_name["platform.node"]["perms"]} == {
        "platform.distribution.internal",
        "platform.router.internal",
        "platform.authz.internal",
    }
    for service in ("blueprints", "distribution", "bus", "policy", "configtree", "router", "authz"):
        assert f"{service}.reader" in by_name and f"{service}.writer" in by_name
    assert ok(admin.get("/authz/perms/role/authz.reader")) == {
        "perm": [perm("platform.authz.api", "*", "read")]
    }
    stored = [role["name"] for role in roles[len(builtin) :]]
    assert stored == sorted(stored)
