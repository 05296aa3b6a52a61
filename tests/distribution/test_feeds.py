"""Feed provisioning through real HTTP: create, read, update, delete, and every way to get it wrong."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import (
    FEED_TYPE,
    OWNER,
    create_feed,
    feed_document,
    owner_headers,
    post_feed,
    put_feed,
)


def test_create_answers_200_with_links_publisher_and_defaults(
    client: httpx.Client, service: RunningService
) -> None:
    response = post_feed(client, feed_document())
    assert response.status_code == 200
    body = response.json()
    base = service.url
    assert body["links"] == {
        "self": f"{base}/feed/1",
        "publish": f"{base}/publish/1",
        "subscribe": f"{base}/subscribe/1",
        "log": f"{base}/feedlog/1",
    }
    assert response.headers["location"] == f"{base}/feed/1"
    assert response.headers["content-type"].startswith("application/json")
    assert body["publisher"] == OWNER
    assert body["authz_instance"] == "legacy"
    assert body["suspend"] is False and body["groupid"] == 0 and body["business_description"] == ""
    # Passwords are stored only as hashes: an answer names the endpoint ids alone.
    assert body["authorization"]["endpoint_ids"] == [{"id": "collector1"}]


def test_ids_count_up_and_are_never_reused(client: httpx.Client) -> None:
    first, _ = create_feed(client, name="a")
    second, _ = create_feed(client, name="b")
    assert (first, second) == (1, 2)
    assert client.delete(f"/feed/{second}", headers=owner_headers()).status_code == 204
    third, _ = create_feed(client, name="c")
    assert third == 3


def test_links_use_the_configured_public_url(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = start_service(
        "distribution", make_settings(distribution_public_url="https://dist.example:8443/")
    )
    with service.client() as client:
        _, body = create_feed(client)
    assert body["links"]["self"] == "https://dist.example:8443/feed/1"


def test_get_returns_the_feed_to_any_caller(client: httpx.Client) -> None:
    feed_id, created = create_feed(client)
    response = client.get(f"/feed/{feed_id}", headers=owner_headers("someone"))
    assert response.status_code == 200
    assert response.json() == created


@pytest.mark.parametrize(
    "content_type", ["application/json", f"{FEED_TYPE}; version=1.0", f"{FEED_TYPE}; version=2.0"]
)
def test_accepted_content_types(client: httpx.Client, content_type: str) -> None:
    assert post_feed(client, feed_document(), content_type=content_type).status_code == 200


@pytest.mark.parametrize(
    "content_type", ["text/plain", f"{FEED_TYPE}; version=3.0", "application/vnd.bus-dr.subscription"]
)
def test_wrong_content_type_is_415(client: httpx.Client, content_type: str) -> None:
    response = post_feed(client, feed_document(), content_type=content_type)
    assert response.status_code == 415
    assert response.text == "Incorrect content-type"
    assert response.headers["content-type"].startswith("text/plain")


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'"text"', b""])
def test_badly_formed_json_is_400(client: httpx.Client, body: bytes) -> None:
    response = client.post("/", content=body, headers={**owner_headers(), "Content-Type": FEED_TYPE})
    assert response.status_code == 400
    assert response.text == "Badly formed JSON"


def test_on_behalf_of_header_is_required_and_at_most_8_characters(client: httpx.Client) -> None:
    missing = client.post("/", json=feed_document(), headers={"Content-Type": FEED_TYPE})
    assert (missing.status_code, missing.text) == (400, "Missing X-BUS-DR-ON-BEHALF-OF header.")
    too_long = post_feed(client, feed_document(), owner="ninechars")
    assert (too_long.status_code, too_long.text) == (400, "X-BUS-DR-ON-BEHALF-OF header too long")
    assert post_feed(client, feed_document(), owner="eightchr").json()["publisher"] == "eightchr"
    for path in ("/feed/1", "/subs/1"):
        assert client.get(path).status_code == 400


def test_credentials_are_required(service: RunningService) -> None:
    for auth in (None, ("admin", "wrong")):
        with service.client(auth=auth) as client:
            response = post_feed(client, feed_document())
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Basic ")


LONG = "x" * 257


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": None}, 'Invalid JSON: JSONObject["name"] not found.'),
        ({"name": "n" * 21}, "name field is too long"),
        ({"name": 7}, 'Invalid JSON: JSONObject["name"] is not a string.'),
        ({"version": None}, 'Invalid JSON: JSONObject["version"] not found.'),
        ({"version": "v" * 21}, "version field is too long"),
        ({"description": LONG}, "technical description field is too long"),
        ({"business_description": LONG}, "business description field is too long"),
        ({"authz_instance": LONG}, "authz_instance field is too long"),
        ({"authorization": None}, 'Invalid JSON: JSONObject["authorization"] not found.'),
        ({"authorization": "open"}, 'Invalid JSON: JSONObject["authorization"] is not a JSONObject.'),
        ({"suspend": "maybe"}, 'Invalid JSON: JSONObject["suspend"] is not a Boolean.'),
        ({"groupid": "ten"}, 'Invalid JSON: JSONObject["groupid"] is not an int.'),
        ({"groupid": 2**31}, 'Invalid JSON: JSONObject["groupid"] is not an int.'),
        ({"name": "nul\u0000"}, 'Invalid JSON: JSONObject["name"] is not a valid string.'),
    ],
)
def test_feed_field_rules(client: httpx.Client, change: dict[str, Any], message: str) -> None:
    document = feed_document()
    for key, value in change.items():
        if value is None:
            document.pop(key)
        else:
            document[key] = value
    response = post_feed(client, document)
    assert (response.status_code, response.text) == (400, message)


def test_lone_surrogates_are_refused(client: httpx.Client) -> None:
    body = json.dumps(feed_document(description="@")).replace("@", "\\ud800").encode()
    response = client.post("/", content=body, headers={**owner_headers(), "Content-Type": FEED_TYPE})
    assert (response.status_code, response.text) == (
        400,
        'Invalid JSON: JSONObject["description"] is not a valid string.',
    )


def authorization(**overrides: object) -> dict[str, Any]:
    value: dict[str, Any] = {
        "classification": "unclassified",
        "endpoint_ids": [{"id": "collector1", "password": "pw"}],
        "endpoint_addrs": [],
    }
    value.update(overrides)
    return {key: item for key, item in value.items() if item is not None}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (authorization(classification=None), 'Invalid JSON: JSONObject["classification"] not found.'),
        (authorization(classification="c" * 33), "classification field is too long"),
        (authorization(endpoint_ids=None), 'Invalid JSON: JSONObject["endpoint_ids"] not found.'),
        (authorization(endpoint_ids=[]), "need to specify at least one endpoint_id"),
        (
            authorization(endpoint_ids=[{"id": "i" * 21, "password": "p"}]),
            f"id field is too long ({'i' * 21})",
        ),
        (authorization(endpoint_ids=[{"id": "a", "password": "p" * 33}]), "password field is too long"),
        (authorization(endpoint_ids=[{"password": "p"}]), 'Invalid JSON: JSONObject["id"] not found.'),
        (authorization(endpoint_ids=["collector1"]), "Invalid JSON: JSONArray[0] is not a JSONObject."),
        (authorization(endpoint_addrs=["10.0.0.300"]), "bad IP addr or subnet mask: 10.0.0.300"),
        (authorization(endpoint_addrs=["10.0.0.0/33"]), "bad IP addr or subnet mask: 10.0.0.0/33"),
        (authorization(endpoint_addrs=["2001:db8::/129"]), "bad IP addr or subnet mask: 2001:db8::/129"),
        (authorization(endpoint_addrs=["host.example"]), "bad IP addr or subnet mask: host.example"),
    ],
)
def test_authorization_field_rules(client: httpx.Client, value: dict[str, Any], message: str) -> None:
    response = post_feed(client, feed_document(authorization=value))
    assert (response.status_code, response.text) == (400, message)


def test_limits_are_inclusive_and_lenient_values_are_read(client: httpx.Client) -> None:
    document = feed_document(
        name="n" * 20,
        version="v" * 20,
        description="d" * 256,
        business_description="b" * 256,
        authz_instance="a" * 256,
        suspend="true",
        groupid="12",
        unknown_key="ignored",
        publisher="ignored",
        authorization=authorization(
            classification="c" * 32,
            endpoint_ids=[{"id": "i" * 20, "password": "p" * 32}],
            endpoint_addrs=["10.1.2.3", "10.0.0.0/8", "2001:db8::1", "2001:db8::/32"],
        ),
    )
    response = post_feed(client, document)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["suspend"], body["groupid"], body["publisher"]) == (True, 12, OWNER)
    assert "unknown_key" not in body


def test_duplicate_live_name_and_version_is_refused_until_deleted(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    duplicate = post_feed(client, feed_document())
    assert (duplicate.status_code, duplicate.text) == (400, "This feed already exists in the database.")
    assert post_feed(client, feed_document(version="2.0")).status_code == 200
    assert client.delete(f"/feed/{feed_id}", headers=owner_headers()).status_code == 204
    assert post_feed(client, feed_document()).status_code == 200


def test_feed_limit_is_409_and_failed_creates_do_not_use_it(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = start_service("distribution", make_settings(distribution_max_feeds=2))
    with service.client() as client:
        assert post_feed(client, feed_document(name="bad", version=None)).status_code == 400
        first, _ = create_feed(client, name="a")
        create_feed(client, name="b")
        refused = post_feed(client, feed_document(name="c"))
        assert (refused.status_code, refused.text) == (
            409,
            "Cannot create feed; the maximum number of feeds has been configured.",
        )
        client.delete(f"/feed/{first}", headers=owner_headers())
        assert post_feed(client, feed_document(name="c")).status_code == 200


def test_update_changes_updatable_fields_only(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    change = feed_document(
        description="new words",
        business_description="for the business",
        suspend=True,
        groupid=5,
        authz_instance="other",
        authorization=authorization(
            endpoint_ids=[{"id": "second", "password": "pw2"}], endpoint_addrs=["10.0.0.0/8"]
        ),
    )
    response = put_feed(client, feed_id, change)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["description"] == "new words" and body["business_description"] == "for the business"
    assert body["suspend"] is True and body["groupid"] == 5
    assert body["authz_instance"] == "legacy"
    assert body["authorization"]["endpoint_ids"] == [{"id": "second"}]
    assert body["authorization"]["endpoint_addrs"] == ["10.0.0.0/8"]
    assert client.get(f"/feed/{feed_id}", headers=owner_headers()).json() == body


def test_update_may_leave_out_the_version_but_not_change_name_or_version(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    without_version = feed_document()
    without_version.pop("version")
    assert put_feed(client, feed_id, without_version).status_code == 200
    renamed = put_feed(client, feed_id, feed_document(name="other"))
    assert (renamed.status_code, renamed.text) == (400, "The name of the feed may not be updated.")
    versioned = put_feed(client, feed_id, feed_document(version="9"))
    assert (versioned.status_code, versioned.text) == (400, "The version of the feed may not be updated.")
    invalid = put_feed(client, feed_id, feed_document(description=LONG))
    assert invalid.status_code == 400


def test_only_the_owner_or_its_group_may_change_or_delete(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client, groupid=7)
    for response in (
        put_feed(client, feed_id, feed_document(groupid=7), owner="intruder"),
        client.delete(f"/feed/{feed_id}", headers=owner_headers("intruder")),
        put_feed(
            client,
            feed_id,
            feed_document(groupid=7),
            owner="intruder",
            **{"X-BUS-DR-ON-BEHALF-OF-GROUP": "8"},
        ),
    ):
        assert (response.status_code, response.text) == (403, "Policy Engine disallows access.")
    group_member = put_feed(
        client, feed_id, feed_document(groupid=7), owner="member", **{"X-BUS-DR-ON-BEHALF-OF-GROUP": "7"}
    )
    assert group_member.status_code == 200
    assert group_member.json()["publisher"] == OWNER


def test_group_zero_gives_no_rights(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    response = put_feed(
        client, feed_id, feed_document(), owner="other", **{"X-BUS-DR-ON-BEHALF-OF-GROUP": "0"}
    )
    assert response.status_code == 403


def test_exclude_authz_header_has_no_effect(client: httpx.Client) -> None:
    response = client.post(
        "/",
        json=feed_document(),
        headers={**owner_headers(), "Content-Type": FEED_TYPE, "X-EXCLUDE-AUTHZ": "true"},
    )
    assert response.status_code == 200
    feed_id = response.json()["links"]["self"].rsplit("/", 1)[1]
    other = put_feed(client, int(feed_id), feed_document(), owner="other", **{"X-EXCLUDE-AUTHZ": "true"})
    assert other.status_code == 403


def test_check_order_on_update_is_404_then_403_then_415(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    absent = client.put("/feed/99", content=b"x", headers={**owner_headers(), "Content-Type": "text/plain"})
    assert (absent.status_code, absent.text) == (404, "Missing or bad feed number.")
    foreign = client.put(
        f"/feed/{feed_id}", content=b"x", headers={**owner_headers("x"), "Content-Type": "text/plain"}
    )
    assert foreign.status_code == 403
    wrong_type = client.put(
        f"/feed/{feed_id}", content=b"x", headers={**owner_headers(), "Content-Type": "text/plain"}
    )
    assert wrong_type.status_code == 415
    bad_json = client.put(
        f"/feed/{feed_id}", content=b"x", headers={**owner_headers(), "Content-Type": FEED_TYPE}
    )
    assert (bad_json.status_code, bad_json.text) == (400, "Badly formed JSON")


@pytest.mark.parametrize("feed_id", ["abc", "0", "-1", "1.5", "99999999999"])
def test_bad_feed_numbers_are_400(client: httpx.Client, feed_id: str) -> None:
    for method in ("GET", "PUT", "DELETE"):
        response = client.request(method, f"/feed/{feed_id}", headers=owner_headers())
        assert (response.status_code, response.text) == (400, "Missing or bad feed number."), method


def test_unknown_and_deleted_feeds_are_404(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    assert client.delete(f"/feed/{feed_id}", headers=owner_headers()).status_code == 204
    for method in ("GET", "PUT", "DELETE"):
        for path in (f"/feed/{feed_id}", "/feed/42"):
            response = client.request(method, path, headers=owner_headers())
            assert (response.status_code, response.text) == (404, "Missing or bad feed number.")


@pytest.mark.parametrize(
    ("method", "path", "message"),
    [
        ("PUT", "/", "PUT not allowed for the drFeedsURL."),
        ("DELETE", "/", "DELETE not allowed for the drFeedsURL."),
        ("POST", "/feed/1", "POST not allowed for the feedURL."),
    ],
)
def test_unsupported_methods_are_405(client: httpx.Client, method: str, path: str, message: str) -> None:
    response = client.request(method, path, headers=owner_headers())
    assert (response.status_code, response.text) == (405, message)


def test_feeds_survive_a_restart(make_settings: SettingsFactory, start_service: ServiceStarter) -> None:
    settings = make_settings()
    first = start_service("distribution", settings)
    with first.client() as client:
        feed_id, created = create_feed(client)
    first.server.stop()
    second = start_service("distribution", settings)
    with second.client() as client:
        body = client.get(f"/feed/{feed_id}", headers=owner_headers()).json()
        next_id, _ = create_feed(client, name="after")
    assert {k: v for k, v in body.items() if k != "links"} == {
        k: v for k, v in created.items() if k != "links"
    }
    assert next_id == feed_id + 1
