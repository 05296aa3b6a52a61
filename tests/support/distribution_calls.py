"""Request bodies and calls the distribution tests share (feeds, subscriptions, publishing, logs)."""

from __future__ import annotations

import copy
from collections.abc import Generator
from typing import Any

import httpx
from sqlalchemy import create_engine, select

from netplatform.distribution.tables import files
from netplatform.store.db import normalize_url
from netplatform.web.auth import basic_header

FEED_TYPE = "application/vnd.bus-dr.feed"
SUB_TYPE = "application/vnd.bus-dr.subscription"
OWNER = "opsteam"
PUBLISHER = ("collector1", "s3cret-pw")


def feed_document(name: str = "pm-counters", version: str | None = "1.0", **overrides: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "name": name,
        "version": version,
        "description": "hourly counters",
        "authorization": {
            "classification": "unclassified",
            "endpoint_ids": [{"id": PUBLISHER[0], "password": PUBLISHER[1]}],
            "endpoint_addrs": [],
        },
    }
    document.update(copy.deepcopy(overrides))
    return document


def subscription_document(url: str = "https://sink.example:9443/in", **overrides: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "delivery": {"url": url, "user": "rxuser", "password": "rx-pass", "use100": False},
        "metadataOnly": False,
        "groupid": 0,
    }
    document.update(copy.deepcopy(overrides))
    return document


def owner_headers(owner: str = OWNER, **extra: str) -> dict[str, str]:
    return {"X-BUS-DR-ON-BEHALF-OF": owner, **extra}


def post_feed(
    client: httpx.Client, document: Any, owner: str = OWNER, content_type: str = FEED_TYPE
) -> httpx.Response:
    return client.post("/", json=document, headers={**owner_headers(owner), "Content-Type": content_type})


def create_feed(client: httpx.Client, owner: str = OWNER, **overrides: Any) -> tuple[int, dict[str, Any]]:
    """Create a feed; its id (from links.self) and body."""
    response = post_feed(client, feed_document(**overrides), owner)
    assert response.status_code == 200, response.text
    body = response.json()
    return int(body["links"]["self"].rsplit("/", 1)[1]), body


def put_feed(
    client: httpx.Client, feed_id: int, document: Any, owner: str = OWNER, **headers: str
) -> httpx.Response:
    return _put(client, f"/feed/{feed_id}", document, FEED_TYPE, owner, headers)


def put_subscription(
    client: httpx.Client, sub_id: int, document: Any, owner: str = OWNER, **headers: str
) -> httpx.Response:
    return _put(client, f"/subs/{sub_id}", document, SUB_TYPE, owner, headers)


def _put(
    client: httpx.Client, path: str, document: Any, content_type: str, owner: str, headers: dict[str, str]
) -> httpx.Response:
    """A PUT of a document on behalf of ``owner``; ``headers`` may replace the content type."""
    return client.put(
        path, json=document, headers={**owner_headers(owner), "Content-Type": content_type, **headers}
    )


def post_subscription(
    client: httpx.Client, feed_id: int | str, document: Any, owner: str = OWNER, content_type: str = SUB_TYPE
) -> httpx.Response:
    return client.post(
        f"/subscribe/{feed_id}", json=document, headers={**owner_headers(owner), "Content-Type": content_type}
    )


def create_subscription(
    client: httpx.Client,
    feed_id: int,
    url: str = "https://sink.example:9443/in",
    owner: str = OWNER,
    **overrides: Any,
) -> tuple[int, dict[str, Any]]:
    response = post_subscription(client, feed_id, subscription_document(url, **overrides), owner)
    assert response.status_code == 201, response.text
    body = response.json()
    return int(body["links"]["self"].rsplit("/", 1)[1]), body


def publish(
    service_url: str,
    feed_id: int | str,
    file_id: str,
    data: bytes = b"",
    *,
    auth: tuple[str, str] | None = PUBLISHER,
    method: str = "PUT",
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    """PUT (or DELETE) /publish/{feed}/{file} as a publisher of the feed (octet-stream unless told)."""
    sent = {"Content-Type": "application/octet-stream"} if method == "PUT" else {}
    sent.update(headers or {})
    with httpx.Client(base_url=service_url, auth=auth, timeout=60) as client:
        return client.request(method, f"/publish/{feed_id}/{file_id}", content=data, headers=sent)


def feed_log(client: httpx.Client, feed_id: int, **params: str) -> list[dict[str, Any]]:
    return _log(client, f"/feedlog/{feed_id}", params)


def sub_log(client: httpx.Client, sub_id: int, **params: str) -> list[dict[str, Any]]:
    return _log(client, f"/sublog/{sub_id}", params)


def _log(client: httpx.Client, path: str, params: dict[str, str]) -> list[dict[str, Any]]:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    records: list[dict[str, Any]] = response.json()
    return records


def authorization_with(**overrides: Any) -> dict[str, Any]:
    """The default feed authorization object with some members replaced."""
    value: dict[str, Any] = copy.deepcopy(feed_document()["authorization"])
    value.update(overrides)
    return value


class PublisherAuth(httpx.Auth):
    """Basic credentials that follow a publish redirected to another node (ingress routes).

    httpx, like curl without ``--location-trusted``, drops ``Authorization`` when a redirect
    leaves the origin; a publisher sends its credentials to the node it was sent to, as the
    reference's publishers do (``curl --location-trusted``).
    """

    requires_request_body = True

    def __init__(self, user: str, password: str) -> None:
        self.value = basic_header(user, password)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = self.value
        response = yield request
        if response.status_code == 401 and response.history:
            redirected = response.request
            redirected.headers["Authorization"] = self.value
            yield redirected


def files_held(database_url: str, node: str | None = None) -> list[str]:
    """The publish ids of the files the database records as held (by ``node``, or by any node):
    a small body is kept in its file row, so an empty spool does not mean that no file is held."""
    engine = create_engine(normalize_url(database_url))
    try:
        with engine.connect() as connection:
            query = select(files.c.publish_id)
            if node is not None:
                query = query.where(files.c.node == node)
            return sorted(connection.scalars(query))
    finally:
        engine.dispose()
