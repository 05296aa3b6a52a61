"""Every status an operation can answer is in its OpenAPI document: each service's document and
route table are walked, and an operation fails when it lacks a status the kernel can answer for
it (stated here from the kernel's behaviour, not from the code that documents it):

- 404 where a value of one of its path parameters makes the path match no route at all (found
  by matching such paths against the route table: a value with a '/', an empty one);
- 409 for an unsafe method (a write that kept losing its race: the store's WriteConflict);
- 415 for an unsafe method (a body of a type it does not declare: web/bodytypes.py);
- 429 and 401 where it needs credentials (the throttle: access/throttle.py);
- 503 everywhere (the database, or the authorization data: a replica past its offline bound,
  access/replica.py, or the credential checks all taken);
- 400 everywhere, 403 where a permission is declared and on every POST (another site's form),
  413 where the body is not streamed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.routing import Match

from netplatform.services import create_service_app
from netplatform.settings import SERVICE_NAMES, Settings

_METHODS = ("get", "put", "post", "delete", "patch")
_UNSAFE = {"put", "post", "delete", "patch"}
_PARAMETER = re.compile(r"\{([^}/]+)\}")
# Values of one path parameter that a client may send and that no route may take.
_PROBES = ("", "a/b", "z/")


def matches_no_route(app: FastAPI, path: str, method: str) -> bool:
    scope = {"type": "http", "path": path, "root_path": "", "method": method.upper()}
    return all(route.matches(scope)[0] is Match.NONE for route in app.routes)


def unmatched_paths(app: FastAPI, template: str, method: str) -> list[str]:
    """Paths of this operation, one parameter given a probe value, that no route takes."""
    names = _PARAMETER.findall(template)
    found = []
    for name in names:
        for probe in _PROBES:
            path = _PARAMETER.sub(_values(name, probe), template)
            if matches_no_route(app, path, method):
                found.append(path)
    return found


def _values(name: str, probe: str) -> Callable[[re.Match[str]], str]:
    """``probe`` for the parameter ``name``, a plain value for the others."""
    return lambda parameter: probe if parameter[1] == name else "x"


def expected_statuses(app: FastAPI, path: str, method: str, operation: dict[str, Any]) -> dict[str, str]:
    """Status -> why the kernel (or the router) can answer it for this operation."""
    expected = {"400": "validation, NUL", "503": "database or authorization data unavailable"}
    if operation.get("security") != []:
        expected |= {"401": "credentials", "429": "throttled failures"}
    permission = operation.get("x-permission")
    if isinstance(permission, str) and permission != "authenticated":
        expected["403"] = f"declares {permission}"
    if method == "post":
        expected["403"] = "a POST from another site"
    if method in _UNSAFE:
        expected |= {"409": "a write that lost its race", "415": "an undeclared body type"}
    if not operation.get("x-streamed-body"):
        expected["413"] = "body limit"
    unmatched = unmatched_paths(app, path, method)
    if unmatched:
        expected["404"] = f"no route matches {unmatched[0]!r}"
    return expected


def undocumented(app: FastAPI) -> list[str]:
    document = app.openapi()
    problems = []
    for path, item in document["paths"].items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            listed = set(operation.get("responses", {}))
            for status, why in sorted(expected_statuses(app, path, method, operation).items()):
                if status not in listed:
                    problems.append(f"{method.upper()} {path}: {status} ({why}) not documented")
    return problems


@pytest.mark.parametrize("service", SERVICE_NAMES)
def test_every_status_an_operation_can_answer_is_documented(service: str, settings: Settings) -> None:
    app = create_service_app(service, settings)
    problems = undocumented(app)
    assert not problems, "\n".join(problems)


def test_a_key_ending_in_a_slash_matches_no_template_route(settings: Settings) -> None:
    """The fuzzer's finding (issue 40): a key with a trailing '/' makes the path match no route,
    so the template upload can answer 404 and documents it."""
    app = create_service_app("blueprints", settings)
    path = "/api/v1/template/{bpName}/{bpVersion}/{artifactName}/{resolutionKey}"
    operation = app.openapi()["paths"][path]["post"]
    assert "/api/v1/template/x/x/x/z/" in unmatched_paths(app, path, "post")
    assert "404" in operation["responses"]


def test_an_undocumented_status_is_found(settings: Settings, tmp_path: Path) -> None:
    app = create_service_app("policy", settings)
    document = app.openapi()
    for item in document["paths"].values():
        for method in _METHODS:
            if method in item:
                item[method]["responses"].pop("503", None)
                item[method]["responses"].pop("404", None)
    problems = undocumented(app)
    assert any(
        problem.endswith("503 (database or authorization data unavailable) not documented")
        for problem in problems
    )
    assert any(" 404 (no route matches " in problem for problem in problems), problems
