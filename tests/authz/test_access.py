"""Who may call the authz service's own routes: authz.reader reads, authz.writer writes, an
identity without roles nothing (but its own roles and permissions)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from netplatform.web.permissions import AUTHENTICATED, declared

from ..conftest import RunningService
from ..support.answers import ok
from .conftest import ADMIN, PLAIN, READER, WRITER, app_of, client_as, refused

# A body each write route accepts, so a caller that passes the permission check gets past
# validation too (and the answer shows the check, not the body, decided).
BODIES: dict[tuple[str, str], Any] = {
    ("POST", "/authn/cred"): {"id": "x-access", "password": "p"},
    ("PUT", "/authn/cred/{id}"): {"password": "p"},
    ("POST", "/authn/validate"): {"id": "admin", "password": "admin"},
    ("POST", "/authz/role"): {"name": "x.access"},
    ("POST", "/authz/role/perm"): {
        "role": "no.such.role",
        "perm": {"type": "t", "instance": "i", "action": "a"},
    },
    ("POST", "/authz/userRole"): {"user": "nobody-here", "role": "no.such.role"},
}


def operations(service: RunningService) -> list[tuple[str, str, Any]]:
    """(method, route path, its declaration) of every protected route."""
    found = []
    for route in app_of(service).state.route_table.routes:
        extra = route.openapi_extra or {}
        if extra.get("security") == []:
            continue
        for method in sorted(route.methods - {"HEAD"}):
            found.append((method, route.path, declared(extra, method)))
    return found


def call(client: httpx.Client, method: str, path: str, user: str = "nobody-here") -> httpx.Response:
    concrete = re.sub(r"\{(user|id)\}", user, path)
    concrete = re.sub(r"\{([^}:]+)(:[^}]+)?\}", "x", concrete)
    return client.request(method, concrete, json=BODIES.get((method, path)))


@pytest.mark.parametrize(
    ("auth", "allowed"),
    [(READER, {"read"}), (WRITER, {"read", "write"}), (ADMIN, {"read", "write"}), (PLAIN, set())],
    ids=["reader", "writer", "admin", "no-role"],
)
def test_each_route_admits_the_roles_its_permission_names(
    authz: RunningService, auth: tuple[str, str], allowed: set[str]
) -> None:
    checked = 0
    with client_as(authz, auth) as client:
        for method, path, required in operations(authz):
            response = call(client, method, path)
            if required == AUTHENTICATED:  # the per-object listings: self or authz.reader
                if "read" in allowed:
                    assert response.status_code == 404, (method, path, response.text)
                else:
                    refused(response, 403, f"User {auth[0]} does not have permission platform.authz.api|")
                continue
            if required.type == "platform.authz.internal":  # sites following the directory
                assert path == "/internal/directory", (method, path)
                if auth != ADMIN:
                    refused(response, 403, f"User {auth[0]} does not have permission {required}")
                continue
            assert required.type == "platform.authz.api", (method, path, required)
            if required.action in allowed:
                assert response.status_code != 403, (method, path, auth[0], response.text)
            else:
                refused(response, 403, f"User {auth[0]} does not have permission {required}")
            checked += 1
    assert checked >= 14


def test_reads_and_writes_declare_the_documented_resources(authz: RunningService) -> None:
    found = {(method, path): str(required) for method, path, required in operations(authz)}
    api = "platform.authz.api"
    assert found[("GET", "/authn/cred")] == f"{api}|cred|read"
    assert found[("POST", "/authn/cred")] == f"{api}|cred|write"
    assert found[("POST", "/authn/validate")] == f"{api}|validate|read"
    assert found[("POST", "/authz/role")] == f"{api}|role|write"
    assert found[("POST", "/authz/role/perm")] == f"{api}|perm|write"
    assert found[("POST", "/authz/userRole")] == f"{api}|userRole|write"
    assert found[("GET", "/authz/roles")] == f"{api}|roles|read"
    assert found[("GET", "/authz/users/role/{role}")] == f"{api}|users|read"
    assert found[("GET", "/authz/perms/role/{role}")] == f"{api}|perms|read"
    assert found[("GET", "/authz/roles/user/{user}")] == AUTHENTICATED
    assert found[("GET", "/authz/perms/user/{user}")] == AUTHENTICATED
    assert found[("GET", "/internal/directory")] == "platform.authz.internal|directory|call"


def test_the_document_shows_each_permission(admin: httpx.Client) -> None:
    document = ok(admin.get("/openapi.json"))
    operation = document["paths"]["/authz/role/{role}/perm/{type}/{instance}/{action}"]["delete"]
    assert operation["x-permission"] == "platform.authz.api|perm|write"
    listing = document["paths"]["/authz/roles/user/{user}"]["get"]
    assert listing["x-permission-rule"] == "the identity itself, or authz.reader"


def test_without_credentials_nothing_is_answered(authz: RunningService) -> None:
    with client_as(authz, ("reader", "wrong")) as client:
        body = refused(client.get("/authz/roles"), 401)
    assert body["fields"] == "Authentication"
