"""Log queries through real HTTP, over records written through the domain's log store."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from netplatform.clock import now_ms
from netplatform.distribution.log_model import ExpiryReason, LogRecord, RecordType
from netplatform.distribution.repository.logs import LogRepository
from netplatform.store.db import database_for

from ..conftest import RunningService
from ..support.distribution_calls import create_feed, create_subscription, owner_headers

HOUR_MS = 3600 * 1000


def write(service: RunningService, *records: LogRecord) -> None:
    with database_for(service.settings).write() as session:
        logs = LogRepository(session)
        for record in records:
            logs.insert(record)


def publish_record(feed_id: int, date_ms: int, publish_id: str, file_name: str = "a.csv") -> LogRecord:
    return LogRecord(
        type=RecordType.PUBLISH,
        date_ms=date_ms,
        feed_id=feed_id,
        publish_id=publish_id,
        request_uri=f"https://dist.example/publish/{feed_id}/{file_name}",
        method="PUT",
        content_type="application/octet-stream",
        content_length=10,
        source_ip="10.0.0.1",
        endpoint_id="collector1",
        file_name=file_name,
        status_code=204,
    )


def delivery_record(feed_id: int, sub_id: int, date_ms: int, publish_id: str, status: int) -> LogRecord:
    return LogRecord(
        type=RecordType.DELIVERY,
        date_ms=date_ms,
        feed_id=feed_id,
        sub_id=sub_id,
        publish_id=publish_id,
        request_uri="https://sink.example/in/a.csv",
        method="PUT",
        content_type="application/octet-stream",
        content_length=10,
        status_code=status,
        delivery_id="rxuser",
    )


def expiry_record(
    feed_id: int, sub_id: int, date_ms: int, publish_id: str, reason: ExpiryReason
) -> LogRecord:
    return LogRecord(
        type=RecordType.EXPIRY,
        date_ms=date_ms,
        feed_id=feed_id,
        sub_id=sub_id,
        publish_id=publish_id,
        request_uri="https://sink.example/in/a.csv",
        method="PUT",
        content_length=0,
        expiry_reason=reason,
        attempts=3,
    )


@pytest.fixture
def history(service: RunningService, client: httpx.Client) -> dict[str, int]:
    """Two feeds; feed 1 has subscriptions 1 and 2. Records over the last hours, oldest first."""
    feed, _ = create_feed(client, name="one")
    other_feed, _ = create_feed(client, name="two")
    sub, _ = create_subscription(client, feed)
    other_sub, _ = create_subscription(client, feed)
    t = now_ms() - 5 * HOUR_MS
    write(
        service,
        publish_record(feed, t, "1.a", "a.csv"),
        delivery_record(feed, sub, t + 1, "1.a", 503),
        delivery_record(feed, sub, t + 2, "1.a", -1),
        delivery_record(feed, sub, t + 3, "1.a", 204),
        delivery_record(feed, other_sub, t + 4, "1.a", 302),
        expiry_record(feed, other_sub, t + 5, "1.a", ExpiryReason.NOT_RETRYABLE),
        publish_record(feed, t + HOUR_MS, "2.a", "b.csv"),
        expiry_record(feed, sub, t + HOUR_MS + 1, "2.a", ExpiryReason.RETRIES_EXHAUSTED),
        publish_record(other_feed, t + HOUR_MS, "3.a", "a.csv"),
        publish_record(feed, t - 2 * 24 * HOUR_MS, "0.old", "old.csv"),
    )
    return {"feed": feed, "sub": sub, "other_sub": other_sub, "t": t}


def ids(response: httpx.Response) -> list[tuple[str, str]]:
    assert response.status_code == 200, response.text
    return [(record["type"], record["publishId"]) for record in response.json()]


def test_feed_log_lists_the_last_day_in_date_order_as_log_list(
    client: httpx.Client, history: dict[str, Any]
) -> None:
    response = client.get(f"/feedlog/{history['feed']}")
    assert response.headers["content-type"] == "application/vnd.bus-dr.log-list; version=1.0"
    assert ids(response) == [
        ("pub", "1.a"),
        ("del", "1.a"),
        ("del", "1.a"),
        ("del", "1.a"),
        ("del", "1.a"),
        ("exp", "1.a"),
        ("pub", "2.a"),
        ("exp", "2.a"),
    ]


def test_records_carry_the_fields_of_their_type(client: httpx.Client, history: dict[str, Any]) -> None:
    records = client.get(f"/feedlog/{history['feed']}").json()
    publish, failed_delivery, expiry = records[0], records[1], records[5]
    assert set(publish) == {
        "type",
        "date",
        "publishId",
        "requestURI",
        "method",
        "contentType",
        "contentLength",
        "sourceIP",
        "endpointId",
        "fileName",
        "statusCode",
    }
    assert publish["sourceIP"] == "10.0.0.1" and publish["fileName"] == "a.csv"
    assert failed_delivery["deliveryId"] == "rxuser" and failed_delivery["statusCode"] == 503
    assert "sourceIP" not in failed_delivery and "fileName" not in failed_delivery
    assert expiry["expiryReason"] == "notRetryable" and expiry["attempts"] == 3
    assert "statusCode" not in expiry and "contentType" not in expiry
    assert publish["date"].endswith("Z") and len(publish["date"]) == len("2024-03-07T14:02:11.093Z")


def test_sub_log_has_the_feed_publishes_and_its_own_deliveries(
    client: httpx.Client, history: dict[str, Any]
) -> None:
    assert ids(client.get(f"/sublog/{history['sub']}")) == [
        ("pub", "1.a"),
        ("del", "1.a"),
        ("del", "1.a"),
        ("del", "1.a"),
        ("pub", "2.a"),
        ("exp", "2.a"),
    ]
    assert ids(client.get(f"/sublog/{history['other_sub']}")) == [
        ("pub", "1.a"),
        ("del", "1.a"),
        ("exp", "1.a"),
        ("pub", "2.a"),
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"type": "pub"}, [("pub", "1.a"), ("pub", "2.a")]),
        ({"type": "exp"}, [("exp", "1.a"), ("exp", "2.a")]),
        ({"publishId": "2.a"}, [("pub", "2.a"), ("exp", "2.a")]),
        ({"filename": "b.csv"}, [("pub", "2.a")]),
        ({"statusCode": "success"}, [("pub", "1.a"), ("del", "1.a"), ("pub", "2.a")]),
        ({"statusCode": "SUCCESS", "type": "del"}, [("del", "1.a")]),
        ({"statusCode": "Redirect"}, [("del", "1.a")]),
        ({"statusCode": "failure"}, [("del", "1.a")]),
        ({"statusCode": "-1"}, [("del", "1.a")]),
        ({"statusCode": "503"}, [("del", "1.a")]),
        ({"expiryReason": "retriesExhausted"}, [("exp", "2.a")]),
        ({"expiryReason": "notRetryable", "type": "pub"}, [("exp", "1.a")]),
    ],
)
def test_feed_log_filters(
    client: httpx.Client, history: dict[str, Any], query: dict[str, Any], expected: list[Any]
) -> None:
    assert ids(client.get(f"/feedlog/{history['feed']}", params=query)) == expected


def test_time_window_filters(client: httpx.Client, history: dict[str, Any]) -> None:
    t = history["t"]
    feed = history["feed"]
    assert ids(client.get(f"/feedlog/{feed}", params={"start": str(t + 3), "end": str(t + 4)})) == [
        ("del", "1.a"),
        ("del", "1.a"),
    ]
    assert [r[1] for r in ids(client.get(f"/feedlog/{feed}", params={"end": str(t)}))] == ["1.a"]
    old = t - 2 * 24 * HOUR_MS
    assert ids(client.get(f"/feedlog/{feed}", params={"start": str(old - 1)})) == [("pub", "0.old")]
    records = client.get(f"/feedlog/{feed}").json()
    first_date = records[0]["date"]
    for start in (first_date, first_date.replace("Z", "+00:00")):
        response = client.get(f"/feedlog/{feed}", params={"start": start, "end": records[1]["date"]})
        assert len(ids(response)) == 2


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ({"type": "post"}, "bad type"),
        ({"publishId": "1'; drop"}, "bad publishId"),
        ({"statusCode": "600"}, "bad statusCode"),
        ({"statusCode": "great"}, "bad statusCode"),
        ({"expiryReason": "tired"}, "bad expiryReason"),
        ({"start": "yesterday"}, "bad start"),
        ({"end": "2024-13-45T00:00:00Z"}, "bad end"),
    ],
)
def test_bad_filters_are_400(
    client: httpx.Client, history: dict[str, Any], query: dict[str, Any], reason: str
) -> None:
    for path in (f"/feedlog/{history['feed']}", f"/sublog/{history['sub']}"):
        response = client.get(path, params=query)
        assert (response.status_code, response.text) == (400, f"Invalid arguments: {reason}")


def test_unknown_ids_give_empty_lists_and_bad_ids_400(client: httpx.Client) -> None:
    assert client.get("/feedlog/42").json() == []
    assert client.get("/sublog/42").json() == []
    assert client.get("/feedlog/abc").text == "Missing or bad feed number."
    assert client.get("/sublog/0").text == "Missing or bad subscription number."


def test_records_of_deleted_feeds_and_subscriptions_stay(
    client: httpx.Client, history: dict[str, Any]
) -> None:
    client.delete(f"/subs/{history['sub']}", headers=owner_headers())
    assert len(ids(client.get(f"/sublog/{history['sub']}"))) == 6
    client.delete(f"/feed/{history['feed']}", headers=owner_headers())
    assert len(ids(client.get(f"/feedlog/{history['feed']}"))) == 8


@pytest.mark.parametrize(
    ("accept", "status"),
    [
        ("*/*", 200),
        ("application/*", 200),
        ("application/json", 200),
        ("application/vnd.bus-dr.log-list; version=1.0", 200),
        ("text/html, application/vnd.bus-dr.log-list;q=0.5", 200),
        ("text/html", 406),
        ("application/vnd.bus-dr.log-list;q=0", 406),
        ("application/xml", 406),
    ],
)
def test_accept_header(client: httpx.Client, accept: str, status: int) -> None:
    for path in ("/feedlog/1", "/sublog/1"):
        assert client.get(path, headers={"Accept": accept}).status_code == status


def test_log_queries_need_credentials_but_no_on_behalf_of(service: RunningService) -> None:
    with service.client(auth=None) as client:
        assert client.get("/feedlog/1").status_code == 401
    with service.client() as client:
        assert client.get("/feedlog/1").status_code == 200


@pytest.mark.parametrize("method", ["PUT", "POST", "DELETE"])
def test_log_urls_refuse_changes(client: httpx.Client, method: str) -> None:
    for path in ("/feedlog/1", "/sublog/1"):
        response = client.request(method, path)
        assert (response.status_code, response.text) == (405, f"{method} not allowed for the logURL.")
