"""Bus settings (/bus, /bus_v2), /info, and the conventions every path shares."""

from __future__ import annotations

import httpx
import pytest

from ..support.answers import ok
from .conftest import BUS_SETTINGS, api_error

BLANK = {
    "status": "NEW",
    "version": "0",
    "topicNsRoot": "",
    "busName": "",
    "drProvUrl": "",
    "bridgeAdminTopic": "",
    "loggingUrl": "",
    "nodeKey": "",
    "accessKeyOwner": "",
}


def test_fresh_settings_are_blank_and_new(bus: httpx.Client) -> None:
    for path in ("/info", "/bus", "/bus_v2"):
        assert ok(bus.get(path)) == BLANK


@pytest.mark.parametrize("path", ["/bus", "/bus_v2"])
def test_create_initialises_once_then_answers_the_stored_object(bus: httpx.Client, path: str) -> None:
    body = {key: value for key, value in BUS_SETTINGS.items() if key != "version"}
    created = ok(bus.post(path, json=body))
    assert created["status"] == "VALID"
    assert created["version"] == "1"
    assert created["busName"] == "lab1"
    assert created["lastMod"].endswith("Z") and len(created["lastMod"]) == 24
    again = ok(bus.post(path, json={**body, "busName": "other"}))
    assert again == created
    assert ok(bus.get("/info")) == created


def test_put_replaces_the_settings(bus: httpx.Client) -> None:
    ok(bus.post("/bus", json=BUS_SETTINGS))
    replaced = ok(bus.put("/bus_v2", json={**BUS_SETTINGS, "busName": "lab2", "version": None}))
    assert replaced["busName"] == "lab2"
    assert replaced["version"] == "2"
    assert ok(bus.get("/bus"))["busName"] == "lab2"


@pytest.mark.parametrize(
    ("missing", "fields"),
    [
        ("busName", "busName"),
        ("drProvUrl", "drProvUrl"),
        ("topicNsRoot", "topicNsRoot"),
        ("bridgeAdminTopic", "bridgeAdminTopic"),
    ],
)
def test_required_settings_fields_are_checked_in_order(bus: httpx.Client, missing: str, fields: str) -> None:
    body = {**BUS_SETTINGS, missing: None}
    for method in ("POST", "PUT"):
        error = api_error(bus.request(method, "/bus", json=body), 400)
        assert error == {"code": 400, "message": "missing required field", "fields": fields, "is2xx": False}
    assert ok(bus.get("/bus"))["status"] == "NEW"


def test_bus_name_with_whitespace_violates_the_regexp(bus: httpx.Client) -> None:
    error = api_error(bus.put("/bus", json={**BUS_SETTINGS, "busName": "lab 1"}), 400)
    assert error["message"] == "value 'lab 1' violates regexp check '^\\S+$'"
    assert error["fields"] == "busName"


def test_missing_credentials_give_the_reference_401_body(bus: httpx.Client) -> None:
    response = httpx.get(bus.base_url.join("/info"), auth=("mallory", "x"))
    error = api_error(response, 401)
    assert error == {
        "code": 401,
        "message": "User mallory failed authentication/authorization for /info GET",
        "fields": "Authorization",
        "is2xx": False,
    }
    assert response.headers["www-authenticate"].startswith("Basic")


def test_trailing_slash_and_context_root_are_accepted(bus: httpx.Client) -> None:
    assert ok(bus.get("/info/")) == BLANK
    assert ok(bus.get("/webapi/info")) == BLANK
    assert ok(bus.get("/webapi/svcLocations/")) == []


def test_unknown_path_and_unsupported_method(bus: httpx.Client) -> None:
    assert api_error(bus.get("/nothing-here"), 404)["message"]
    assert api_error(bus.delete("/bus"), 405)


def test_malformed_body_and_nul_are_400_never_500(bus: httpx.Client) -> None:
    api_error(bus.put("/bus", content=b"{nope", headers={"content-type": "application/json"}), 400)
    api_error(bus.put("/bus", json={**BUS_SETTINGS, "busName": "a\x00b"}), 400)
    api_error(bus.get("/svcLocations/a%00b"), 400)
    surrogate = b'{"svcLocationName": "a\\ud800b"}'
    api_error(bus.post("/svcLocations", content=surrogate, headers={"content-type": "application/json"}), 400)
