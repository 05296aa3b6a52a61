"""Every service: it answers on its port, and every protected route refuses missing or wrong credentials."""

from __future__ import annotations

import re
from typing import cast

import pytest
from fastapi import FastAPI

from netplatform.settings import SERVICE_NAMES

from .conftest import ServiceStarter, SettingsFactory


def protected_operations(app: FastAPI) -> list[tuple[str, str]]:
    operations: list[tuple[str, str]] = []
    for route in app.state.route_table.routes:
        if (route.openapi_extra or {}).get("security") == []:
            continue
        path = re.sub(r"\{([^}:]+)(:[^}]+)?\}", "x", route.path)
        operations.extend((method, path) for method in sorted(route.methods - {"HEAD"}))
    return operations


@pytest.mark.parametrize("name", SERVICE_NAMES)
def test_service_answers_health_without_credentials(start_service: ServiceStarter, name: str) -> None:
    service = start_service(name)
    with service.client(auth=None) as client:
        response = client.get("/health")
    assert response.status_code == 200
    named = {"engine": "embedded"} if name == "router" else {}  # the router names its engine
    assert response.json() == {"service": name, "status": "UP", **named}


@pytest.mark.parametrize("name", SERVICE_NAMES)
def test_every_protected_route_refuses_missing_and_wrong_credentials(
    start_service: ServiceStarter, make_settings: SettingsFactory, name: str
) -> None:
    # Hundreds of failures from one address: the throttle (tests/authz/test_throttle.py) would
    # answer 429 long before the last route; here every route's own refusal is the point.
    unthrottled = make_settings(
        auth_failures_per_client=0, auth_failures_per_address=0, auth_failures_per_name=0
    )
    service = start_service(name, unthrottled)
    operations = protected_operations(cast(FastAPI, service.server.server.config.app))
    assert ("GET", "/metrics") in operations
    for auth in (None, ("admin", "not-the-password"), ("intruder", "admin")):
        with service.client(auth=auth) as client:
            for method, path in operations:
                response = client.request(method, path)
                assert response.status_code == 401, (method, path, auth, response.text)
                assert response.headers["www-authenticate"].startswith("Basic ")
