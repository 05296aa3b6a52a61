"""Log retention (age and per-feed count) and the spool's free-space floor (503, ``exp diskFull``).

The floor is tested without filling the disk: a floor above the free space makes the node's disk
"full", one at half the free space leaves room for small files only.
"""

from __future__ import annotations

import functools
import json
import shutil
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy import insert

from netplatform.clock import now_ms
from netplatform.distribution.logs.retention import LogRetention
from netplatform.distribution.publishing import INLINE_BODY_MAX
from netplatform.distribution.repository.logs import LogRepository
from netplatform.distribution.repository.replication import ReplicationRepository
from netplatform.distribution.tables import feeds
from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.web.auth import basic_header

from ..conftest import RunningService, ServiceStarter
from ..support.databases import migrate
from ..support.distribution_calls import (
    PUBLISHER,
    create_feed,
    create_subscription,
    feed_log,
    publish,
    sub_log,
)
from ..support.receiver import Receiver
from ..support.waiting import wait_until
from .test_logs import HOUR_MS, publish_record, write

PRUNE_OFTEN: dict[str, Any] = {"distribution_log_prune_interval_s": 0.2}
CHECK_OFTEN: dict[str, Any] = {"delivery_spool_check_s": 0.2}

StartTuned = Callable[..., str]


def delivered(client: httpx.Client, feed_id: int, publish_id: str) -> bool:
    return bool(feed_log(client, feed_id, type="del", publishId=publish_id))


def expired_thrice(client: httpx.Client, sub_id: int) -> bool:
    return len(sub_log(client, sub_id, type="exp")) == 3


def publish_ids(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(record["type"], record["publishId"]) for record in records]


def published(service_url: str, feed_id: int, file_id: str, data: bytes = b"x") -> str:
    response = publish(service_url, feed_id, file_id, data)
    assert response.status_code == 204, response.text
    return response.headers["X-BUS-DR-PUBLISH-ID"]


def spooled_blobs(data_dir: Path) -> list[Path]:
    """Every file in the node's blob directory, partial writes included."""
    root = data_dir / "blobs"
    return [path for path in root.rglob("*") if path.is_file()] if root.exists() else []


def with_floor(settings: Settings, floor: int, **more: Any) -> Settings:
    return settings.model_copy(update={"delivery_spool_min_free_bytes": floor, **more})


def free_bytes(data_dir: Path) -> int:
    path = data_dir if data_dir.exists() else data_dir.parent
    return shutil.disk_usage(path).free


# --- log retention -------------------------------------------------------------------------


def test_count_bound_keeps_each_feeds_newest_records(start_tuned: StartTuned, subscriber: Receiver) -> None:
    url = start_tuned(distribution_log_max_records_per_feed=3, distribution_log_max_age_s=0, **PRUNE_OFTEN)
    with httpx.Client(base_url=url, auth=("admin", "admin")) as client:
        quiet = create_feed(client, name="quiet")[0]
        quiet_ids = [published(url, quiet, f"q{n}") for n in range(2)]
        busy = create_feed(client, name="busy")[0]
        sub_id = create_subscription(client, busy, subscriber.url + "/in")[0]
        expected: list[tuple[str, str]] = []
        for n in range(4):
            publish_id = published(url, busy, f"b{n}")
            wait_until(functools.partial(delivered, client, busy, publish_id))
            expected += [("pub", publish_id), ("del", publish_id)]
        newest = expected[-3:]
        wait_until(lambda: publish_ids(feed_log(client, busy)) == newest)
        assert publish_ids(sub_log(client, sub_id)) == newest
        # the busy feed pushed out only its own records
        assert publish_ids(feed_log(client, quiet)) == [("pub", pid) for pid in quiet_ids]


def test_age_bound_removes_old_records_and_keeps_recent_ones(
    start_service: ServiceStarter, delivery_settings: Settings
) -> None:
    # The old record is dated an hour back and the bound is a minute: which record goes is not
    # decided by timing (with records two seconds apart, a prune pass late by two seconds under
    # load took both, and the state awaited never showed).
    tuning = {"distribution_log_max_age_s": 60, "distribution_log_max_records_per_feed": 0, **PRUNE_OFTEN}
    service = start_service("distribution", delivery_settings.model_copy(update=tuning))
    with httpx.Client(base_url=service.url, auth=("admin", "admin")) as client:
        feed = create_feed(client)[0]
        write(service, publish_record(feed, now_ms() - HOUR_MS, "1.old"))
        recent = published(service.url, feed, "recent")
        wait_until(lambda: publish_ids(feed_log(client, feed)) == [("pub", recent)])


def test_no_bounds_keep_every_record(start_tuned: StartTuned) -> None:
    url = start_tuned(distribution_log_max_age_s=0, distribution_log_max_records_per_feed=0, **PRUNE_OFTEN)
    with httpx.Client(base_url=url, auth=("admin", "admin")) as client:
        feed = create_feed(client)[0]
        ids = [published(url, feed, f"f{n}") for n in range(3)]
        # A fixed wait on purpose: an absence has no condition to await.
        time.sleep(1)  # several prune passes
        assert publish_ids(feed_log(client, feed)) == [("pub", pid) for pid in ids]


# --- the spool's free-space floor ---------------------------------------------------------------


def test_publish_refused_while_spool_is_under_its_floor(
    start_service: ServiceStarter, delivery_settings: Settings
) -> None:
    data_dir: Path = delivery_settings.data_dir
    service = start_service("distribution", with_floor(delivery_settings, free_bytes(data_dir) + (1 << 40)))
    with service.client() as client:
        feed = create_feed(client)[0]
        create_subscription(client, feed)
        response = publish(service.url, feed, "big.csv", b"z" * 100_000)
        assert response.status_code == 503
        assert response.headers["content-type"].startswith("text/plain")
        assert response.text.startswith("Disk full: ")
        assert int(response.headers["Retry-After"]) > 0
        assert feed_log(client, feed) == []
        assert spooled_blobs(data_dir) == []
        # a retraction stores no file: it is still accepted
        assert publish(service.url, feed, "big.csv", method="DELETE").status_code == 204


def test_forwarded_file_refused_while_spool_is_under_its_floor(
    start_service: ServiceStarter, delivery_settings: Settings
) -> None:
    data_dir: Path = delivery_settings.data_dir
    service = start_service("distribution", with_floor(delivery_settings, free_bytes(data_dir) + (1 << 40)))
    with service.client() as client:
        feed = create_feed(client)[0]
        sub_id = create_subscription(client, feed)[0]
        envelope = {
            "publishId": "1709820131093.elsewhere",
            "feedId": feed,
            "subId": sub_id,
            "fileId": "moved.csv",
            "method": "PUT",
            "publishedMs": int(time.time() * 1000),
            "headers": {"Content-Type": "text/csv"},
            "fromNode": "elsewhere",
        }
        response = client.put(
            "/internal/forward/1709820131093.elsewhere",
            content=b"a,b\n",
            headers={"X-NETPLATFORM-FORWARD": json.dumps(envelope)},
        )
        assert response.status_code == 503, response.text
        assert response.text.startswith("Disk full: ")
        assert "Retry-After" in response.headers
        assert spooled_blobs(data_dir) == []


def test_publish_whose_length_would_cross_the_floor_is_refused_unread(
    start_service: ServiceStarter, delivery_settings: Settings
) -> None:
    data_dir: Path = delivery_settings.data_dir
    free = free_bytes(data_dir)
    service = start_service("distribution", with_floor(delivery_settings, free // 2))
    with service.client() as client:
        feed = create_feed(client)[0]
        create_subscription(client, feed)
        status, body = declare_and_wait(service, feed, "huge.bin", declared=free)
        assert status == 503
        assert body.startswith("Disk full: the file would take this node's spool under its free-space floor")
        assert spooled_blobs(data_dir) == []
        small = published(service.url, feed, "small.bin", b"12345")
        # Only publish records: the small file's delivery record may land before this read.
        assert publish_ids(feed_log(client, feed, type="pub")) == [("pub", small)]


def declare_and_wait(service: RunningService, feed_id: int, file_id: str, declared: int) -> tuple[int, str]:
    """PUT with ``Content-Length: declared`` and no body sent: the status and body of the answer."""
    address = urlsplit(service.url)
    head = (
        f"PUT /publish/{feed_id}/{file_id} HTTP/1.1\r\n"
        f"Host: {address.netloc}\r\n"
        f"Authorization: {basic_header(*PUBLISHER)}\r\n"
        "Content-Type: application/octet-stream\r\n"
        f"Content-Length: {declared}\r\n\r\n"
    )
    with socket.create_connection((address.hostname, address.port), timeout=30) as connection:
        connection.sendall(head.encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = connection.recv(65536)
            assert chunk, "connection closed before the answer"
            answer += chunk
        headers, _, body = answer.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in headers.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(body) < length:
            chunk = connection.recv(65536)
            assert chunk, "connection closed inside the answer"
            body += chunk
    return int(headers.split(b" ", 2)[1]), body.decode()


def test_spooled_files_expire_disk_full_oldest_first(
    start_service: ServiceStarter, delivery_settings: Settings, subscriber: Receiver
) -> None:
    data_dir: Path = delivery_settings.data_dir
    subscriber.answer_with(lambda request: (503, {}))  # every file stays spooled
    roomy = start_service("distribution", with_floor(delivery_settings, 0))
    with roomy.client() as client:
        feed = create_feed(client)[0]
        first = create_subscription(client, feed, subscriber.url + "/one")[0]
        second = create_subscription(client, feed, subscriber.url + "/two", metadataOnly=True)[0]
        # The middle one too large to be kept in its file row: a blob of the spool.
        bodies = [b"data-0", b"d" * (INLINE_BODY_MAX + 1), b"data-2"]
        ids = [published(roomy.url, feed, f"f{n}.csv", body) for n, body in enumerate(bodies)]
        subscriber.wait_for(2)  # both queues tried their first file
    assert len(spooled_blobs(data_dir)) == 1
    roomy.server.stop()
    floor = free_bytes(data_dir) + (1 << 40)
    full = start_service("distribution", with_floor(delivery_settings, floor, **CHECK_OFTEN))
    with full.client() as client:
        for sub_id, path, lengths in ((first, "/one", [len(b) for b in bodies]), (second, "/two", [0, 0, 0])):
            wait_until(functools.partial(expired_thrice, client, sub_id))
            expired = sub_log(client, sub_id, type="exp")
            assert [record["publishId"] for record in expired] == ids
            for n, record in enumerate(expired):
                assert record["expiryReason"] == "diskFull"
                assert record["requestURI"] == f"{subscriber.url}{path}/f{n}.csv"
                assert record["method"] == "PUT"
                assert record["contentLength"] == lengths[n]
                assert isinstance(record["attempts"], int)
            assert expired[0]["attempts"] >= 1  # the head of the queue was tried (and answered 503)
    assert spooled_blobs(data_dir) == []


# --- at an edge node: only what central has taken ---------------------------------------------


FEED_ROW: dict[str, Any] = {
    "id": 1,
    "name": "pm",
    "version": "1",
    "description": "",
    "business_description": "",
    "classification": "unclassified",
    "endpoint_ids": [],
    "endpoint_addrs": [],
    "suspend": False,
    "groupid": 0,
    "authz_instance": "legacy",
    "publisher": "opsteam",
    "deleted": False,
    "created_ms": 0,
    "modified_ms": 0,
}


def test_an_edge_node_prunes_only_the_records_central_has_taken(
    make_settings: Callable[..., Settings],
) -> None:
    central = "http://central.example:8082"
    settings = make_settings(
        distribution_central_url=central,
        distribution_log_max_age_s=60,
        distribution_log_max_records_per_feed=0,
    )
    migrate(settings)
    db = database_for(settings)
    old = now_ms() - HOUR_MS
    with db.write() as session:
        session.execute(insert(feeds).values(**FEED_ROW))  # as replicated from central
        records = [publish_record(1, old, "1.shipped"), publish_record(1, old, "2.not-yet")]
        LogRepository(session).insert_all(records)
    retention = LogRetention(db, settings)
    assert retention.prune() == 0  # nothing shipped yet: an outage loses nothing
    with db.write() as session:
        first = LogRepository(session).after(0, 1)[0][0]
        ReplicationRepository(session).record_shipped(central, first)
    assert retention.prune() == 1
    with db.read() as session:
        left = [record.publish_id for _, record in LogRepository(session).after(0, 10)]
    assert left == ["2.not-yet"]
