"""/authn/cred and /authn/validate: identities, their passwords, and what is refused."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from netplatform.access.platform import PLATFORM_IDENTITIES

from ..conftest import RunningService
from ..support.answers import ok
from .conftest import ADMIN, AUTHZ_USERS, client_as, new_identity, new_role, refused, unique, within


def test_an_identity_is_created_listed_and_deleted(admin: httpx.Client) -> None:
    identity = unique("alice") + "@example.org"
    created = admin.post("/authn/cred", json={"id": identity, "password": "first-pass"})
    assert ok(created, 201) == {"id": identity}
    assert "first-pass" not in created.text

    listed = ok(admin.get("/authn/cred"))["user"]
    configured = [entry["id"] for entry in listed if entry["configured"]]
    platform = [identity.name for identity in PLATFORM_IDENTITIES]
    assert configured == [entry.split(":")[0] for entry in AUTHZ_USERS.split(",")] + platform
    assert {"id": identity, "configured": False} in listed

    assert ok(admin.delete(f"/authn/cred/{identity}")) == {"id": identity}
    assert identity not in [entry["id"] for entry in ok(admin.get("/authn/cred"))["user"]]
    refused(admin.delete(f"/authn/cred/{identity}"), 404, identity)


def test_an_existing_identity_is_a_conflict(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    refused(admin.post("/authn/cred", json={"id": identity, "password": "other"}), 409, identity)
    # A configured identity exists too, though it is no row.
    refused(admin.post("/authn/cred", json={"id": "plain", "password": "other"}), 409, "NETPLATFORM_USERS")


@pytest.mark.parametrize(
    "body",
    [
        {"id": "", "password": "p"},
        {"id": "a" * 256, "password": "p"},
        {"id": "has space", "password": "p"},
        {"id": "colon:name", "password": "p"},
        {"id": "slash/name", "password": "p"},
        {"id": "ünïcode", "password": "p"},
        {"id": "fine", "password": ""},
        {"id": "fine"},
        {"password": "p"},
        {"id": 12, "password": "p"},
        {"id": "fine", "password": "nul\u0000"},
        [],
    ],
)
def test_a_malformed_credential_is_refused(admin: httpx.Client, body: object) -> None:
    refused(admin.post("/authn/cred", json=body), 400)


def test_malformed_json_is_a_bad_request(admin: httpx.Client) -> None:
    headers = {"Content-Type": "application/json"}
    refused(admin.post("/authn/cred", content=b'{"id": "x", ', headers=headers), 400)
    refused(admin.post("/authz/role", content=b"not json", headers=headers), 400)


def test_the_longest_identity_and_every_allowed_character(admin: httpx.Client) -> None:
    longest = "a" * 255
    ok(admin.post("/authn/cred", json={"id": longest, "password": "p"}), 201)
    ok(admin.delete(f"/authn/cred/{longest}"))
    every = "Az09._@-" + unique("x")
    ok(admin.post("/authn/cred", json={"id": every, "password": "p"}), 201)
    ok(admin.post("/authn/validate", json={"id": every, "password": "p"}))


def test_a_password_is_changed_and_the_old_one_stops_working(
    authz: RunningService, admin: httpx.Client
) -> None:
    identity, old = new_identity(admin)
    with client_as(authz, (identity, old)) as as_old:
        # Authenticated (no role: 403 from the permission check, not 401).
        refused(as_old.get("/authz/roles"), 403, f"User {identity} does not have permission")
        changed = admin.put(f"/authn/cred/{identity}", json={"password": "new-pass"})
        assert ok(changed) == {"id": identity} and "new-pass" not in changed.text
        within(lambda: as_old.get("/authz/roles").status_code, 401)
    with client_as(authz, (identity, "new-pass")) as as_new:
        refused(as_new.get("/authz/roles"), 403)
    ok(admin.post("/authn/validate", json={"id": identity, "password": "new-pass"}))
    refused(admin.post("/authn/validate", json={"id": identity, "password": old}), 403)


def test_a_change_may_name_the_identity_in_the_body_too(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    ok(admin.put(f"/authn/cred/{identity}", json={"id": identity, "password": "changed"}))
    ok(admin.post("/authn/validate", json={"id": identity, "password": "changed"}))
    refused(
        admin.put(f"/authn/cred/{identity}", json={"id": "someone-else", "password": "x"}),
        400,
        "someone-else",
    )


def test_password_changes_are_refused_where_they_cannot_apply(admin: httpx.Client) -> None:
    refused(admin.put("/authn/cred/nobody-here", json={"password": "x"}), 404, "nobody-here")
    refused(admin.put("/authn/cred/plain", json={"password": "x"}), 403, "NETPLATFORM_USERS")
    refused(admin.delete("/authn/cred/plain"), 403, "NETPLATFORM_USERS")
    refused(admin.put("/authn/cred/anyone", json={"password": ""}), 400)
    refused(admin.put("/authn/cred/anyone", json={}), 400)
    # The configured identity is untouched.
    ok(admin.post("/authn/validate", json={"id": "plain", "password": "plain-pw"}))


def test_deleting_an_identity_deletes_its_memberships(admin: httpx.Client) -> None:
    identity, _ = new_identity(admin)
    role = new_role(admin)
    ok(admin.post("/authz/userRole", json={"user": identity, "role": role}), 201)
    ok(admin.delete(f"/authn/cred/{identity}"))
    assert ok(admin.get(f"/authz/users/role/{role}")) == {"user": []}
    # Recreated under the same name, it starts without the old membership.
    ok(admin.post("/authn/cred", json={"id": identity, "password": "again"}), 201)
    assert ok(admin.get(f"/authz/roles/user/{identity}")) == {"role": []}


def test_validate_answers_for_stored_and_configured_identities(admin: httpx.Client) -> None:
    identity, password = new_identity(admin)
    assert ok(admin.post("/authn/validate", json={"id": identity, "password": password})) == {"id": identity}
    wrong = refused(admin.post("/authn/validate", json={"id": identity, "password": "wrong"}), 403)
    assert "wrong" not in wrong["message"] and wrong["fields"] == "Authentication"
    refused(admin.post("/authn/validate", json={"id": "nobody-at-all", "password": password}), 403)
    assert ok(admin.post("/authn/validate", json={"id": "admin", "password": "admin"})) == {"id": "admin"}
    refused(admin.post("/authn/validate", json={"id": "admin", "password": "not-it"}), 403)
    refused(admin.post("/authn/validate", json={"id": identity}), 400)


def test_the_first_user_is_the_administrator(authz: RunningService) -> None:
    with client_as(authz, ADMIN) as client:
        roles = ok(client.get("/authz/roles/user/admin"))["role"]
    assert [role["name"] for role in roles] == ["platform.admin"]


def test_concurrent_creations_of_one_identity_make_one(authz: RunningService) -> None:
    identity = unique("racer")

    def create(index: int) -> int:
        with client_as(authz, ADMIN) as client:
            return client.post("/authn/cred", json={"id": identity, "password": f"p{index}"}).status_code

    with ThreadPoolExecutor(6) as pool:
        answers = sorted(pool.map(create, range(6)))
    assert answers == [201] + [409] * 5
