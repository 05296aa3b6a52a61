"""Subscription provisioning through real HTTP: create, read, update, delete, rules and owners."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import (
    SUB_TYPE,
    create_feed,
    create_subscription,
    owner_headers,
    post_subscription,
    put_subscription,
    subscription_document,
)


def masked(body: dict[str, Any]) -> dict[str, Any]:
    """A subscription's answer as a writer reads it back: the delivery password masked."""
    return {**body, "delivery": {**body["delivery"], "password": "********"}}


@pytest.fixture
def feed_id(client: httpx.Client) -> int:
    return create_feed(client)[0]


def test_subscribe_answers_201_with_links_subscriber_and_created_date(
    client: httpx.Client, service: RunningService, feed_id: int
) -> None:
    response = post_subscription(client, feed_id, subscription_document(), owner="rxteam")
    assert response.status_code == 201, response.text
    body = response.json()
    base = service.url
    assert body["links"] == {
        "self": f"{base}/subs/1",
        "feed": f"{base}/feed/{feed_id}",
        "log": f"{base}/sublog/1",
    }
    assert response.headers["location"] == f"{base}/subs/1"
    assert body["subscriber"] == "rxteam"
    assert isinstance(body["created_date"], int) and body["created_date"] > 1_600_000_000_000
    assert body["delivery"] == {
        "url": "https://sink.example:9443/in",
        "user": "rxuser",
        "password": "rx-pass",
        "use100": False,
    }
    assert (body["metadataOnly"], body["follow_redirect"], body["decompress"], body["suspend"]) == (
        False,
        False,
        False,
        False,
    )
    assert body["privilegedSubscriber"] is False and body["authz_instance"] == "legacy"
    # Read back, the password is masked (docs/distribution.md "Delivery passwords").
    assert client.get("/subs/1", headers=owner_headers("anyone")).json() == masked(body)


def test_metadata_only_is_also_accepted_by_its_spec_name(client: httpx.Client, feed_id: int) -> None:
    document = subscription_document()
    document.pop("metadataOnly")
    document["metadata_only"] = True
    response = post_subscription(client, feed_id, document)
    assert response.status_code == 201
    assert response.json()["metadataOnly"] is True
    assert "metadata_only" not in response.json()


def test_duplicate_subscriptions_are_allowed(client: httpx.Client, feed_id: int) -> None:
    first, _ = create_subscription(client, feed_id)
    second, _ = create_subscription(client, feed_id)
    assert second == first + 1


def delivery(**overrides: object) -> dict[str, Any]:
    value: dict[str, Any] = {"url": "https://sink.example/in", "user": "rxuser", "password": "rx-pass"}
    value.update(overrides)
    return {key: item for key, item in value.items() if item is not None}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"delivery": None}, 'Invalid JSON: JSONObject["delivery"] not found.'),
        ({"metadataOnly": None}, 'Invalid JSON: JSONObject["metadataOnly"] not found.'),
        ({"groupid": None}, 'Invalid JSON: JSONObject["groupid"] not found.'),
        ({"groupid": 1.5}, 'Invalid JSON: JSONObject["groupid"] is not an int.'),
        ({"decompress": 3}, 'Invalid JSON: JSONObject["decompress"] is not a Boolean.'),
        ({"authz_instance": "a" * 257}, "authz_instance field is too long"),
        ({"delivery": delivery(url=None)}, 'Invalid JSON: JSONObject["url"] not found.'),
        ({"delivery": delivery(url="http://sink.example/in")}, "delivery URL is not HTTPS"),
        ({"delivery": delivery(url="https://sink.example/" + "x" * 236)}, "delivery url field is too long"),
        ({"delivery": delivery(url="https://")}, "delivery URL is not a valid URL"),
        ({"delivery": delivery(url="https://sink example/in")}, "delivery URL is not a valid URL"),
        ({"delivery": delivery(user=None)}, 'Invalid JSON: JSONObject["user"] not found.'),
        ({"delivery": delivery(user="u" * 21)}, "delivery user field is too long"),
        ({"delivery": delivery(password="p" * 33)}, "delivery password field is too long"),
        ({"delivery": delivery(use100="yes")}, 'Invalid JSON: JSONObject["use100"] is not a Boolean.'),
    ],
)
def test_subscription_field_rules(
    client: httpx.Client, feed_id: int, change: dict[str, Any], message: str
) -> None:
    document = subscription_document()
    for key, value in change.items():
        if value is None:
            document.pop(key)
        else:
            document[key] = value
    response = post_subscription(client, feed_id, document)
    assert (response.status_code, response.text) == (400, message)


def test_limits_are_inclusive(client: httpx.Client, feed_id: int) -> None:
    url = "https://sink.example/" + "x" * 235
    document = subscription_document(
        url, authz_instance="a" * 256, groupid="3", decompress="true", privilegedSubscriber=True
    )
    document["delivery"].update(user="u" * 20, password="p" * 32, use100="TRUE")
    response = post_subscription(client, feed_id, document)
    assert response.status_code == 201, response.text
    body = response.json()
    assert len(body["delivery"]["url"]) == 256
    assert (
        body["groupid"],
        body["decompress"],
        body["privilegedSubscriber"],
        body["delivery"]["use100"],
    ) == (
        3,
        True,
        True,
        True,
    )


def test_subscribe_check_order(client: httpx.Client, feed_id: int) -> None:
    bad_id = post_subscription(client, "x", subscription_document())
    assert (bad_id.status_code, bad_id.text) == (400, "Missing or bad feed number.")
    absent = post_subscription(client, 99, subscription_document(), content_type="text/plain")
    assert (absent.status_code, absent.text) == (404, "Missing or bad feed number.")
    wrong_type = post_subscription(
        client, feed_id, subscription_document(), content_type="application/vnd.bus-dr.feed"
    )
    assert (wrong_type.status_code, wrong_type.text) == (415, "Incorrect content-type")
    headers = {**owner_headers(), "Content-Type": SUB_TYPE}
    bad_json = client.post(f"/subscribe/{feed_id}", content=b"[]", headers=headers)
    assert (bad_json.status_code, bad_json.text) == (400, "Badly formed JSON")
    assert (
        post_subscription(
            client, feed_id, subscription_document(), content_type="application/json"
        ).status_code
        == 201
    )


def test_anyone_may_subscribe_but_deleted_feeds_take_no_subscriptions(
    client: httpx.Client, feed_id: int
) -> None:
    assert post_subscription(client, feed_id, subscription_document(), owner="stranger").status_code == 201
    client.delete(f"/feed/{feed_id}", headers=owner_headers())
    assert post_subscription(client, feed_id, subscription_document()).status_code == 404


def test_subscription_limit_is_409(make_settings: SettingsFactory, start_service: ServiceStarter) -> None:
    service = start_service("distribution", make_settings(distribution_max_subscriptions=1))
    with service.client() as client:
        feed_id, _ = create_feed(client)
        create_subscription(client, feed_id)
        refused = post_subscription(client, feed_id, subscription_document())
    assert (refused.status_code, refused.text) == (
        409,
        "Cannot create subscription; the maximum number of subscriptions has been configured.",
    )


def test_update_changes_updatable_fields_and_keeps_subscriber_and_created_date(
    client: httpx.Client, feed_id: int
) -> None:
    sub_id, created = create_subscription(client, feed_id)
    change = subscription_document(
        "https://other.example/files",
        metadataOnly=True,
        groupid=4,
        suspend=True,
        decompress=True,
        follow_redirect=True,
        privilegedSubscriber=True,
    )
    change["delivery"].update(user="u2", password="p2", use100=True)
    response = put_subscription(client, sub_id, change)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["delivery"] == {
        "url": "https://other.example/files",
        "user": "u2",
        "password": "p2",
        "use100": True,
    }
    assert (body["metadataOnly"], body["groupid"], body["suspend"], body["decompress"]) == (
        True,
        4,
        True,
        True,
    )
    assert body["follow_redirect"] is True and body["privilegedSubscriber"] is True
    assert (body["subscriber"], body["created_date"], body["links"]) == (
        created["subscriber"],
        created["created_date"],
        created["links"],
    )
    assert client.get(f"/subs/{sub_id}", headers=owner_headers()).json() == masked(body)


def test_update_and_delete_need_the_owner_or_its_group(client: httpx.Client, feed_id: int) -> None:
    sub_id, _ = create_subscription(client, feed_id, groupid=9)
    document = subscription_document(groupid=9)
    assert put_subscription(client, sub_id, document, owner="other").status_code == 403
    denied = client.delete(f"/subs/{sub_id}", headers=owner_headers("other"))
    assert (denied.status_code, denied.text) == (403, "Policy Engine disallows access.")
    group = {"X-BUS-DR-ON-BEHALF-OF-GROUP": "9"}
    assert put_subscription(client, sub_id, document, owner="other", **group).status_code == 200
    assert client.delete(f"/subs/{sub_id}", headers=owner_headers("other", **group)).status_code == 204


def test_update_check_order(client: httpx.Client, feed_id: int) -> None:
    sub_id, _ = create_subscription(client, feed_id)
    text_headers = {**owner_headers(), "Content-Type": "text/plain"}
    assert client.put("/subs/x", content=b"", headers=text_headers).status_code == 400
    assert client.put("/subs/77", content=b"", headers=text_headers).status_code == 404
    assert (
        client.put(
            f"/subs/{sub_id}", content=b"", headers={**text_headers, "X-BUS-DR-ON-BEHALF-OF": "o"}
        ).status_code
        == 403
    )
    assert client.put(f"/subs/{sub_id}", content=b"", headers=text_headers).status_code == 415
    invalid = put_subscription(client, sub_id, subscription_document("http://plain.example/"))
    assert (invalid.status_code, invalid.text) == (400, "delivery URL is not HTTPS")


def test_deleted_and_unknown_subscriptions_are_404(client: httpx.Client, feed_id: int) -> None:
    sub_id, _ = create_subscription(client, feed_id)
    assert client.delete(f"/subs/{sub_id}", headers=owner_headers()).status_code == 204
    for method in ("GET", "PUT", "DELETE"):
        response = client.request(method, f"/subs/{sub_id}", headers=owner_headers())
        assert (response.status_code, response.text) == (404, "Missing or bad subscription number.")
    assert client.get("/subs/0", headers=owner_headers()).text == "Missing or bad subscription number."


def test_deleting_a_feed_deletes_its_subscriptions(client: httpx.Client, feed_id: int) -> None:
    sub_id, _ = create_subscription(client, feed_id)
    client.delete(f"/feed/{feed_id}", headers=owner_headers())
    assert client.get(f"/subs/{sub_id}", headers=owner_headers()).status_code == 404


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
def test_subscribe_url_refuses_put_and_delete(client: httpx.Client, method: str) -> None:
    response = client.request(method, "/subscribe/1", headers=owner_headers())
    assert (response.status_code, response.text) == (405, f"{method} not allowed for the subscribeURL.")


def test_subscriptions_survive_a_restart(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    settings = make_settings()
    first = start_service("distribution", settings)
    with first.client() as client:
        feed_id, _ = create_feed(client)
        sub_id, created = create_subscription(client, feed_id)
    first.server.stop()
    with start_service("distribution", settings).client() as client:
        body = client.get(f"/subs/{sub_id}", headers=owner_headers()).json()
    assert body.pop("links")["self"].endswith(f"/subs/{sub_id}")
    created.pop("links")
    assert body == masked(created)
