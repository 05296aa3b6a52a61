"""Feed and subscription listings through real HTTP: GET / (a feed by name and version, or the URLs of
the live feeds, filtered) and GET /subscribe/{feedId} (the URLs of a feed's subscriptions)."""

from __future__ import annotations

import httpx
import pytest

from ..conftest import RunningService
from ..support.distribution_calls import create_feed, create_subscription, owner_headers


def feed_urls(client: httpx.Client, **params: str) -> list[str]:
    response = client.get("/", params=params, headers=owner_headers())
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    urls: list[str] = response.json()
    return urls


def test_name_and_version_answer_the_live_feed(client: httpx.Client, service: RunningService) -> None:
    feed_id, created = create_feed(client, name="pm", version="2.0")
    create_feed(client, name="pm", version="1.0")
    response = client.get("/", params={"name": "pm", "version": "2.0"}, headers=owner_headers())
    assert response.status_code == 200
    assert response.json() == created
    assert response.json()["links"]["self"] == f"{service.url}/feed/{feed_id}"


def test_name_and_version_of_no_live_feed_is_404(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client, name="pm", version="1.0")
    assert client.delete(f"/feed/{feed_id}", headers=owner_headers()).status_code == 204
    for params in ({"name": "pm", "version": "1.0"}, {"name": "pm", "version": "9"}):
        response = client.get("/", params=params, headers=owner_headers())
        assert response.status_code == 404
        assert response.text == "Missing or bad feed number."


def test_the_list_holds_the_live_feeds_urls_oldest_first(
    client: httpx.Client, service: RunningService
) -> None:
    assert feed_urls(client) == []
    first, _ = create_feed(client, name="a")
    second, _ = create_feed(client, name="b")
    third, _ = create_feed(client, name="c")
    assert client.delete(f"/feed/{second}", headers=owner_headers()).status_code == 204
    assert feed_urls(client) == [f"{service.url}/feed/{first}", f"{service.url}/feed/{third}"]


def test_filters_by_name_publisher_and_subscriber(client: httpx.Client, service: RunningService) -> None:
    ops_a, _ = create_feed(client, name="a", version="1")
    ops_a2, _ = create_feed(client, name="a", version="2")
    noc_b, _ = create_feed(client, owner="noc", name="b")
    create_subscription(client, noc_b, owner="rx")
    create_subscription(client, ops_a2, owner="rx")
    gone, _ = create_subscription(client, ops_a, owner="rx")
    assert client.delete(f"/subs/{gone}", headers=owner_headers("rx")).status_code == 204

    def url(feed_id: int) -> str:
        return f"{service.url}/feed/{feed_id}"

    assert feed_urls(client, name="a") == [url(ops_a), url(ops_a2)]
    assert feed_urls(client, publisher="noc") == [url(noc_b)]
    assert feed_urls(client, subscriber="rx") == [url(ops_a2), url(noc_b)]
    assert feed_urls(client, name="a", subscriber="rx") == [url(ops_a2)]
    assert feed_urls(client, version="1") == [url(ops_a), url(ops_a2), url(noc_b)]  # version alone: no filter
    assert feed_urls(client, subscriber="nobody") == []


def test_subscription_list_of_a_feed(client: httpx.Client, service: RunningService) -> None:
    feed_id, _ = create_feed(client)
    other_feed, _ = create_feed(client, name="other")
    assert client.get(f"/subscribe/{feed_id}", headers=owner_headers()).json() == []
    first, _ = create_subscription(client, feed_id, owner="rx")
    create_subscription(client, other_feed)
    second, _ = create_subscription(client, feed_id, owner="ops2")
    third, _ = create_subscription(client, feed_id)
    assert client.delete(f"/subs/{second}", headers=owner_headers("ops2")).status_code == 204
    response = client.get(f"/subscribe/{feed_id}", headers=owner_headers("anyone"))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == [f"{service.url}/subs/{first}", f"{service.url}/subs/{third}"]


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/subscribe/0", 400, "Missing or bad feed number."),
        ("/subscribe/x", 400, "Missing or bad feed number."),
        ("/subscribe/99", 404, "Missing or bad feed number."),
    ],
)
def test_subscription_list_of_a_bad_or_unknown_feed(
    client: httpx.Client, path: str, status: int, message: str
) -> None:
    response = client.get(path, headers=owner_headers())
    assert (response.status_code, response.text) == (status, message)


def test_subscription_list_of_a_deleted_feed_is_404(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    create_subscription(client, feed_id)
    assert client.delete(f"/feed/{feed_id}", headers=owner_headers()).status_code == 204
    assert client.get(f"/subscribe/{feed_id}", headers=owner_headers()).status_code == 404


@pytest.mark.parametrize("path", ["/", "/?name=a&version=1", "/subscribe/1"])
def test_listings_need_credentials_and_the_on_behalf_of_header(service: RunningService, path: str) -> None:
    with service.client() as client:
        create_feed(client, name="a", version="1")
        response = client.get(path)
        assert (response.status_code, response.text) == (400, "Missing X-BUS-DR-ON-BEHALF-OF header.")
        too_long = client.get(path, headers=owner_headers("ninechars"))
        assert too_long.status_code == 400
    for auth in (None, ("admin", "wrong")):
        with service.client(auth=auth) as client:
            response = client.get(path, headers=owner_headers())
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Basic ")
