"""Service-wide behaviour: the endpoint listing, response headers, the 401 and 404 bodies."""

from __future__ import annotations

from typing import cast

import httpx
from fastapi import FastAPI

from ..conftest import RunningService
from .conftest import assert_error


def test_actuator_mappings_list_every_route(client: httpx.Client, service: RunningService) -> None:
    response = client.get("/actuator/mappings")
    assert response.status_code == 202
    application = response.json()["contexts"]["application"]
    assert application["parentId"] is None
    entries = application["mappings"]["dispatcherHandlers"]["webHandler"]
    routes = cast(FastAPI, service.server.server.config.app).state.route_table.routes
    listed = {
        (
            tuple(e["details"]["requestMappingConditions"]["methods"]),
            e["details"]["requestMappingConditions"]["patterns"][0],
        )
        for e in entries
    }
    assert listed == {(tuple(sorted(route.methods)), route.path) for route in routes}
    delete_by_id = next(
        e
        for e in entries
        if e["details"]["requestMappingConditions"]["patterns"] == ["/api/v1/blueprint-model/{id}"]
        and e["details"]["requestMappingConditions"]["methods"] == ["DELETE"]
    )
    assert delete_by_id["predicate"] == "{DELETE /api/v1/blueprint-model/{id}}"
    assert delete_by_id["details"]["handlerMethod"]["name"] == "delete_by_id"
    assert delete_by_id["details"]["handlerFunction"] is None
    upload = next(e for e in entries if e["predicate"].startswith("{POST /api/v1/blueprint-model/publish"))
    assert upload["details"]["requestMappingConditions"]["consumes"] == [
        {"mediaType": "multipart/form-data", "negated": False}
    ]
    assert upload["details"]["requestMappingConditions"]["produces"] == [
        {"mediaType": "application/json", "negated": False}
    ]


def test_every_response_carries_request_and_invocation_ids(service: RunningService) -> None:
    with service.client() as client:
        echoed = client.get(
            "/api/v1/dictionary/source-mapping",
            headers={"X-PLATFORM-RequestID": "req-1", "X-PLATFORM-InvocationID": "inv-1"},
        )
        generated = client.get("/api/v1/blueprint-model/unknown")
    with service.client(auth=None) as anonymous:
        refused = anonymous.get("/actuator/mappings")
    assert echoed.headers["X-PLATFORM-RequestID"] == "req-1"
    assert echoed.headers["X-PLATFORM-InvocationID"] == "inv-1"
    for response in (generated, refused):
        assert len(response.headers["X-PLATFORM-RequestID"]) == 36
        assert len(response.headers["X-PLATFORM-InvocationID"]) == 36


def test_missing_credentials_are_401_in_the_error_payload(service: RunningService) -> None:
    with service.client(auth=("admin", "wrong")) as client:
        response = client.get("/api/v1/blueprint-model")
    assert_error(response, 401, "UNAUTHORIZED_REQUEST")
    assert response.headers["WWW-Authenticate"] == 'Basic realm="blueprints"'


def test_unknown_path_is_request_not_found(client: httpx.Client) -> None:
    assert_error(client.get("/api/v1/nowhere"), 404, "REQUEST_NOT_FOUND", "Please verify your request.")
    not_allowed = client.put("/api/v1/blueprint-model/some-id")
    assert_error(not_allowed, 405, "REQUEST_NOT_FOUND")
    assert not_allowed.headers["Allow"] == "DELETE, GET"
    assert client.put("/api/v1/blueprint-model/paged").headers["Allow"] == "GET"
    assert client.put("/api/v1/blueprint-model/publish").headers["Allow"] == "POST"


def test_error_payload_shape(client: httpx.Client) -> None:
    body = client.get("/api/v1/model-type/ghost").json()
    assert list(body) == ["code", "status", "timestamp", "message", "debugMessage", "logLevel", "subErrors"]
    assert (
        body["message"]
        == "Cause: couldn't get modelType(ghost) \n Action : Provide the ID to find the resource."
    )
    assert body["debugMessage"] == "" and body["logLevel"] == "ERROR" and body["subErrors"] == []
