"""Publish to real HTTPS subscribers (trustme certificates): what arrives, and how."""

from __future__ import annotations

import base64
import gzip
import os
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import (
    create_feed,
    create_subscription,
    feed_log,
    owner_headers,
    publish,
    sub_log,
)
from ..support.receiver import Receiver, RecordedRequest, Reply
from ..support.tls import TlsFiles
from ..support.waiting import wait_until

SubscriberFactory = Callable[[], Receiver]


@pytest.fixture
def feed_id(client: httpx.Client) -> int:
    return create_feed(client)[0]


def subscribe(
    client: httpx.Client, feed_id: int, subscriber: Receiver, path: str = "/in", **options: Any
) -> int:
    return create_subscription(client, feed_id, subscriber.url + path, **options)[0]


@pytest.mark.parametrize("size", [0, 1, 100_000, 5 * 1024 * 1024 + 3])
def test_bytes_arrive_identical_with_the_reference_headers(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver, size: int
) -> None:
    subscribe(client, feed_id, subscriber)
    data = os.urandom(size)
    response = publish(
        service.url,
        feed_id,
        "counters 08:00.csv",
        data,
        headers={
            "Content-Type": "text/csv",
            "X-BUS-DR-META": '{"source":"pm","n":1}',
            "X-Custom-Tag": "kept",
            "X-BUS-DR-Private": "dropped",
            "X-PLATFORM-RequestID": "req-7",
        },
    )
    assert response.status_code == 204, response.text
    publish_id = response.headers["X-BUS-DR-PUBLISH-ID"]
    millis, instance = publish_id.split(".", 1)
    assert instance == "test" and abs(int(millis) - time.time() * 1000) < 60_000
    (request,) = subscriber.wait_for(1)
    assert request.method == "PUT"
    assert request.path == "/in/counters%2008%3A00.csv"
    assert request.body == data
    assert request.header("authorization") == "Basic " + base64.b64encode(b"rxuser:rx-pass").decode()
    assert request.header("x-bus-dr-publish-id") == publish_id
    assert request.header("x-bus-dr-meta") == '{"source":"pm","n":1}'
    assert request.header("x-custom-tag") == "kept"
    assert request.header("x-bus-dr-private") is None
    assert request.header("x-platform-requestid") == "req-7"
    uuid.UUID(request.header("x-invocationid"))
    assert (request.header("x-bus-dr-received") or "").endswith(";from=127.0.0.1;by=127.0.0.1")
    assert request.header("content-length") == str(size)
    assert request.header("expect") is None
    assert request.header("content-type") == ("text/csv" if size else None)


def test_every_subscription_receives_and_delivery_keeps_publish_order(
    service: RunningService, client: httpx.Client, feed_id: int, make_subscriber: SubscriberFactory
) -> None:
    first, second = make_subscriber(), make_subscriber()
    subscribe(client, feed_id, first)
    subscribe(client, feed_id, second, "/other")
    names = [f"file-{n}" for n in range(6)]
    for name in names:
        assert publish(service.url, feed_id, name, name.encode()).status_code == 204
    for subscriber, prefix in ((first, "/in/"), (second, "/other/")):
        received = subscriber.wait_for(len(names))
        assert [r.path for r in received] == [prefix + name for name in names]
        assert [r.body for r in received] == [name.encode() for name in names]


def test_publish_without_subscriptions_is_accepted_and_spools_nothing(
    service: RunningService, feed_id: int
) -> None:
    response = publish(service.url, feed_id, "lonely.txt", b"data")
    assert response.status_code == 204
    assert spooled_files(service) == []


def spooled_files(service: RunningService) -> list[str]:
    root = service.settings.blob_dir
    return [p.name for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_spooled_files_are_removed_when_every_delivery_has_ended(
    service: RunningService, client: httpx.Client, feed_id: int, make_subscriber: SubscriberFactory
) -> None:
    good, refusing = make_subscriber(), make_subscriber()
    refusing.answer_sequence([], then=403)
    subscribe(client, feed_id, good)
    subscribe(client, feed_id, refusing)
    publish(service.url, feed_id, "a.bin", b"x" * 1000)
    good.wait_for(1)
    refusing.wait_for(1)
    wait_until(lambda: spooled_files(service) == [])


def test_non_ascii_metadata_arrives_as_sent(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscribe(client, feed_id, subscriber)
    meta = '{"site":"Zürich"}'.encode()
    response = publish(service.url, feed_id, "u.txt", b"1", headers={"X-BUS-DR-META": meta})  # type: ignore[dict-item]
    assert response.status_code == 204
    (request,) = subscriber.wait_for(1)
    assert (request.header("x-bus-dr-meta") or "").encode("latin-1") == meta


def test_metadata_only_subscriptions_get_an_empty_put_with_the_metadata(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    sub_id = subscribe(client, feed_id, subscriber, metadataOnly=True)
    publish(service.url, feed_id, "big.bin", b"y" * 5000, headers={"X-BUS-DR-META": '{"k":"v"}'})
    (request,) = subscriber.wait_for(1)
    assert (request.method, request.body, request.header("content-length")) == ("PUT", b"", "0")
    assert request.header("x-bus-dr-meta") == '{"k":"v"}'
    assert request.header("content-type") is None
    wait_until(lambda: len(sub_log(client, sub_id, type="del")) == 1)
    (record,) = sub_log(client, sub_id, type="del")
    assert record["contentLength"] == 0 and "contentType" not in record


def test_decompress_delivers_gunzipped_data_without_the_gz_suffix(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscribe(client, feed_id, subscriber, decompress=True)
    original = b"line of counters\n" * 10_000
    publish(service.url, feed_id, "counters.csv.gz", gzip.compress(original))
    publish(service.url, feed_id, "plain.csv", b"not compressed")
    corrupt = gzip.compress(original)[:-20] + b"\x00" * 20
    publish(service.url, feed_id, "broken.gz", corrupt)
    unpacked, plain, broken = subscriber.wait_for(3)
    assert (unpacked.path, unpacked.body) == ("/in/counters.csv", original)
    assert unpacked.header("decompression_status") == "SUCCESS"
    assert unpacked.header("content-length") == str(len(original))
    assert (plain.path, plain.body, plain.header("decompression_status")) == (
        "/in/plain.csv",
        b"not compressed",
        "UNSUPPORTED_FORMAT",
    )
    assert (broken.path, broken.body, broken.header("decompression_status")) == (
        "/in/broken.gz",
        corrupt,
        "FAILURE",
    )


def test_use100_sends_expect_continue_for_non_empty_bodies(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscribe(
        client,
        feed_id,
        subscriber,
        delivery={"url": subscriber.url + "/in", "user": "u", "password": "p", "use100": True},
    )
    publish(service.url, feed_id, "full.bin", b"z" * 70_000)
    publish(service.url, feed_id, "empty.bin", b"")
    full, empty = subscriber.wait_for(2)
    assert full.header("expect") == "100-continue" and full.body == b"z" * 70_000
    assert empty.header("expect") is None


def test_retraction_is_delivered_as_delete_and_logged(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscribe(client, feed_id, subscriber)
    published = publish(service.url, feed_id, "report.txt", b"v1")
    retracted = publish(service.url, feed_id, "report.txt", method="DELETE", headers={"X-BUS-DR-META": "{}"})
    assert retracted.status_code == 204
    assert retracted.headers["X-BUS-DR-PUBLISH-ID"] != published.headers["X-BUS-DR-PUBLISH-ID"]
    put, delete = subscriber.wait_for(2)
    assert (put.method, delete.method, delete.path, delete.body) == ("PUT", "DELETE", "/in/report.txt", b"")
    assert delete.header("content-type") is None
    assert delete.header("x-bus-dr-publish-id") == retracted.headers["X-BUS-DR-PUBLISH-ID"]
    records = feed_log(client, feed_id, type="pub")
    assert [(r["method"], r["fileName"]) for r in records] == [
        ("PUT", "report.txt"),
        ("DELETE", "report.txt"),
    ]


def test_suspended_feeds_refuse_and_suspended_subscriptions_are_skipped(
    service: RunningService, client: httpx.Client, feed_id: int, make_subscriber: SubscriberFactory
) -> None:
    active, paused = make_subscriber(), make_subscriber()
    subscribe(client, feed_id, active)
    paused_id = subscribe(client, feed_id, paused)
    sub = client.get(f"/subs/{paused_id}", headers=owner_headers()).json()
    sub["suspend"] = True
    headers = {**owner_headers(), "Content-Type": "application/json"}
    assert client.put(f"/subs/{paused_id}", json=sub, headers=headers).status_code == 200
    publish(service.url, feed_id, "while-paused.txt", b"1")
    active.wait_for(1)
    feed = client.get(f"/feed/{feed_id}", headers=owner_headers()).json()
    feed["suspend"] = True
    client.put(f"/feed/{feed_id}", json=feed, headers=headers)
    for method in ("PUT", "DELETE"):
        refused = publish(service.url, feed_id, "no.txt", b"2", method=method)
        assert (refused.status_code, refused.text) == (403, "Feed is suspended")
    feed["suspend"] = False
    client.put(f"/feed/{feed_id}", json=feed, headers=headers)
    sub["suspend"] = False
    client.put(f"/subs/{paused_id}", json=sub, headers=headers)
    publish(service.url, feed_id, "after.txt", b"3")
    assert [r.path for r in paused.wait_for(1)] == ["/in/after.txt"]
    assert [r.path for r in active.wait_for(2)] == ["/in/while-paused.txt", "/in/after.txt"]


def quiet_after(subscriber: Receiver) -> int:
    """Requests received once an attempt possibly in flight has ended; asserts no more follow."""
    time.sleep(0.5)
    settled = len(subscriber.requests)
    time.sleep(0.8)  # longer than the backoff: a live queue would have been retried by now
    assert len(subscriber.requests) == settled
    return settled


def test_queued_deliveries_of_a_suspended_subscription_wait_and_resume(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscriber.answer_sequence([], then=503)
    sub_id = subscribe(client, feed_id, subscriber)
    publish(service.url, feed_id, "queued.txt", b"q")
    subscriber.wait_for(1)
    sub = client.get(f"/subs/{sub_id}", headers=owner_headers()).json()
    headers = {**owner_headers(), "Content-Type": "application/json"}
    client.put(f"/subs/{sub_id}", json={**sub, "suspend": True}, headers=headers)
    settled = quiet_after(subscriber)
    subscriber.answer_sequence([], then=204)
    client.put(f"/subs/{sub_id}", json={**sub, "suspend": False}, headers=headers)
    resumed = subscriber.wait_for(settled + 1)
    assert resumed[-1].path == "/in/queued.txt"
    wait_until(lambda: sub_log(client, sub_id, type="del")[-1]["statusCode"] == 204)


def test_retry_then_success_is_logged_attempt_by_attempt(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscriber.answer_sequence([503, 429, 500])
    sub_id = subscribe(client, feed_id, subscriber)
    publish_id = publish(service.url, feed_id, "retry.txt", b"payload").headers["X-BUS-DR-PUBLISH-ID"]
    requests = subscriber.wait_for(4)
    assert {r.body for r in requests} == {b"payload"}
    assert len({r.header("x-invocationid") for r in requests}) == 4
    wait_until(lambda: len(sub_log(client, sub_id, type="del")) == 4)
    deliveries = sub_log(client, sub_id, type="del")
    assert [r["statusCode"] for r in deliveries] == [503, 429, 500, 204]
    assert {r["publishId"] for r in deliveries} == {publish_id}
    record = deliveries[-1]
    assert record["deliveryId"] == "rxuser" and record["requestURI"] == subscriber.url + "/in/retry.txt"
    assert record["contentType"] == "application/octet-stream" and record["contentLength"] == 7
    assert sub_log(client, sub_id, type="exp") == []


def test_client_errors_are_final_with_not_retryable(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscriber.answer_sequence([404])
    sub_id = subscribe(client, feed_id, subscriber)
    publish(service.url, feed_id, "gone.txt", b"1")
    publish(service.url, feed_id, "next.txt", b"2")
    first, second = subscriber.wait_for(2)
    assert (first.path, second.path) == ("/in/gone.txt", "/in/next.txt")
    wait_until(lambda: len(sub_log(client, sub_id, type="del")) == 2)
    (expiry,) = sub_log(client, sub_id, type="exp")
    assert expiry["expiryReason"] == "notRetryable" and expiry["attempts"] == 1
    assert expiry["requestURI"].endswith("/in/gone.txt")
    assert [r["statusCode"] for r in sub_log(client, sub_id, type="del")] == [404, 204]
    assert sub_log(client, sub_id, expiryReason="notRetryable") == [expiry]


def test_files_older_than_the_expiry_end_with_retries_exhausted(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles, subscriber: Receiver
) -> None:
    from .conftest import FAST_DELIVERY

    settings = make_settings(delivery_ca_bundle=tls.ca_bundle, delivery_expiry_s=1.0, **FAST_DELIVERY)
    service = start_service("distribution", settings)
    subscriber.answer_sequence([], then=503)
    with service.client() as client:
        feed_id, _ = create_feed(client)
        sub_id = subscribe(client, feed_id, subscriber)
        publish(service.url, feed_id, "doomed.txt", b"1")
        wait_until(lambda: len(sub_log(client, sub_id, type="exp")) == 1)
        (expiry,) = sub_log(client, sub_id, type="exp")
        attempts = len(sub_log(client, sub_id, type="del"))
    assert expiry["expiryReason"] == "retriesExhausted"
    assert expiry["attempts"] == attempts >= 2
    assert spooled_files(service) == []


def test_unreachable_subscribers_are_logged_with_status_minus_one(
    service: RunningService, client: httpx.Client, feed_id: int
) -> None:
    from ..support.servers import free_port

    sub_id = create_subscription(client, feed_id, f"https://127.0.0.1:{free_port()}/in")[0]
    publish(service.url, feed_id, "nowhere.txt", b"1")
    wait_until(lambda: len(sub_log(client, sub_id, type="del")) >= 2)
    assert {r["statusCode"] for r in sub_log(client, sub_id, type="del")} == {-1}
    assert [r["statusCode"] for r in sub_log(client, sub_id, statusCode="-1")][:2] == [-1, -1]


def test_untrusted_certificates_are_connection_failures(
    make_settings: SettingsFactory, start_service: ServiceStarter, subscriber: Receiver
) -> None:
    service = start_service("distribution", make_settings(delivery_poll_s=0.05, delivery_retry_initial_s=0.2))
    with service.client() as client:
        feed_id, _ = create_feed(client)
        sub_id = subscribe(client, feed_id, subscriber)
        publish(service.url, feed_id, "secret.txt", b"1")
        wait_until(lambda: len(sub_log(client, sub_id, type="del")) >= 1)
        assert sub_log(client, sub_id, type="del")[0]["statusCode"] == -1
    assert subscriber.requests == []


def test_a_failing_subscriber_never_delays_the_others(
    make_settings: SettingsFactory,
    start_service: ServiceStarter,
    tls: TlsFiles,
    make_subscriber: SubscriberFactory,
) -> None:
    from .conftest import FAST_DELIVERY

    settings = make_settings(
        delivery_ca_bundle=tls.ca_bundle,
        **{
            **FAST_DELIVERY,
            # The failing subscriber pauses for longer than the test runs (both bounds: a first
            # pause above the maximum is refused, and below it the pause would end too soon).
            "delivery_retry_initial_s": 30,
            "delivery_retry_max_s": 60,
            "delivery_workers": 1,
        },
    )
    service = start_service("distribution", settings)
    failing, healthy = make_subscriber(), make_subscriber()
    failing.answer_sequence([], then=503)
    with service.client() as client:
        feed_id, _ = create_feed(client)
        subscribe(client, feed_id, failing)
        subscribe(client, feed_id, healthy)
        for n in range(3):
            publish(service.url, feed_id, f"f{n}", b"x")
        assert [r.path for r in healthy.wait_for(3, timeout=10)] == ["/in/f0", "/in/f1", "/in/f2"]
    assert len(failing.requests) == 1


def test_follow_redirect_learns_the_new_base(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    def responder(request: RecordedRequest) -> Reply:
        if request.path.startswith("/in/"):
            return 301, {"Location": subscriber.url + "/moved/" + request.path.rsplit("/", 1)[1]}
        return 204, {}

    subscriber.answer_with(responder)
    sub_id = subscribe(client, feed_id, subscriber, follow_redirect=True)
    publish(service.url, feed_id, "a.txt", b"1")
    publish(service.url, feed_id, "b.txt", b"2")
    requests = subscriber.wait_for(3)
    assert [r.path for r in requests] == ["/in/a.txt", "/moved/a.txt", "/moved/b.txt"]
    wait_until(lambda: len(sub_log(client, sub_id, type="del")) == 3)
    assert [r["statusCode"] for r in sub_log(client, sub_id, type="del")] == [301, 204, 204]


def test_redirects_without_follow_redirect_are_final(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscriber.answer_sequence([302])
    sub_id = subscribe(client, feed_id, subscriber)
    publish(service.url, feed_id, "a.txt", b"1")
    subscriber.wait_for(1)
    wait_until(lambda: len(sub_log(client, sub_id, type="exp")) == 1)
    assert sub_log(client, sub_id, type="exp")[0]["expiryReason"] == "notRetryable"


def test_deleting_a_subscription_drops_its_queue(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscriber.answer_sequence([], then=503)
    sub_id = subscribe(client, feed_id, subscriber)
    publish(service.url, feed_id, "a.txt", b"1")
    subscriber.wait_for(1)
    assert client.delete(f"/subs/{sub_id}", headers=owner_headers()).status_code == 204
    quiet_after(subscriber)
    assert spooled_files(service) == []


def test_publish_record_and_metrics(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    subscribe(client, feed_id, subscriber)
    response = publish(service.url, feed_id, "m.csv", b"12345", headers={"Content-Type": "text/csv"})
    (record,) = feed_log(client, feed_id, type="pub")
    assert record == {
        "type": "pub",
        "date": record["date"],
        "publishId": response.headers["X-BUS-DR-PUBLISH-ID"],
        "requestURI": f"{service.url}/publish/{feed_id}/m.csv",
        "method": "PUT",
        "contentType": "text/csv",
        "contentLength": 5,
        "sourceIP": "127.0.0.1",
        "endpointId": "collector1",
        "fileName": "m.csv",
        "statusCode": 204,
        "node": "test",
    }
    assert feed_log(client, feed_id, filename="m.csv") == [record]
    subscriber.wait_for(1)
    wait_until(lambda: len(feed_log(client, feed_id, type="del")) == 1)
    metrics = client.get("/metrics").text
    assert "distribution_queue_depth 0.0" in metrics
    assert 'distribution_delivery_attempts_total{outcome="delivered"} 1.0' in metrics
    assert 'distribution_published_total{method="PUT"} 1.0' in metrics


def test_concurrent_publishes_are_each_delivered_once_in_commit_order(
    service: RunningService, client: httpx.Client, feed_id: int, make_subscriber: SubscriberFactory
) -> None:
    """Publishes that share a commit (group commit) still each get their own id, record and deliveries;
    every subscription gets each file once, in the order of the publish ids."""
    first, second = make_subscriber(), make_subscriber()
    first_id = subscribe(client, feed_id, first)
    subscribe(client, feed_id, second, "/other")
    names = [f"burst-{n}" for n in range(24)]
    with ThreadPoolExecutor(6) as pool:
        responses = list(pool.map(lambda name: publish(service.url, feed_id, name, name.encode()), names))
    assert [r.status_code for r in responses] == [204] * len(names)
    publish_ids = {r.headers["X-BUS-DR-PUBLISH-ID"]: name for r, name in zip(responses, names, strict=True)}
    assert len(publish_ids) == len(names)
    in_id_order = [publish_ids[key] for key in sorted(publish_ids, key=lambda key: int(key.split(".")[0]))]
    for subscriber, prefix in ((first, "/in/"), (second, "/other/")):
        received = subscriber.wait_for(len(names))
        assert [r.path for r in received] == [prefix + name for name in in_id_order]
        assert [r.body for r in received] == [name.encode() for name in in_id_order]
    assert len(feed_log(client, feed_id, type="pub")) == len(names)
    wait_until(lambda: len(sub_log(client, first_id, type="del")) == len(names))
    quiet_after(first)
    assert len(first.requests) == len(names)


def test_a_failure_within_a_run_resends_from_that_file_and_keeps_order(
    service: RunningService, client: httpx.Client, feed_id: int, subscriber: Receiver
) -> None:
    """The first file fails (the queue pauses, the others queue up behind it); then the third
    attempt fails inside the run of queued files: the run stops there and resumes with that file."""
    subscriber.answer_sequence([503, 204, 204, 503])
    sub_id = subscribe(client, feed_id, subscriber)
    names = ["a.txt", "b.txt", "c.txt", "d.txt"]
    for name in names:
        assert publish(service.url, feed_id, name, name.encode()).status_code == 204
    received = subscriber.wait_for(6)
    assert [r.path for r in received] == [
        "/in/" + name for name in ["a.txt", "a.txt", "b.txt", "c.txt", "c.txt", "d.txt"]
    ]
    wait_until(lambda: len(sub_log(client, sub_id, type="del")) == 6)
    records = sub_log(client, sub_id, type="del")
    outcomes = sorted((r["requestURI"].rsplit("/", 1)[1], r["statusCode"]) for r in records)
    assert outcomes == [
        ("a.txt", 204),
        ("a.txt", 503),
        ("b.txt", 204),
        ("c.txt", 204),
        ("c.txt", 503),
        ("d.txt", 204),
    ]
    wait_until(lambda: spooled_files(service) == [])
