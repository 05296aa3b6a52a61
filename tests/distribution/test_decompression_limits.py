"""Bounded decompression for ``decompress`` subscriptions (issue 17), through real HTTP and HTTPS
subscribers: a file that inflates past the ratio or the absolute bound is not delivered to that
subscription (``exp decompressionLimit``), the others get the original, and its queue moves on."""

from __future__ import annotations

import gzip
import os
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from netplatform.settings import Settings

from ..conftest import RunningService
from ..support.distribution_calls import create_feed, create_subscription, publish, sub_log
from ..support.receiver import Receiver
from ..support.servers import http_client
from ..support.waiting import wait_until

ADMIN = ("admin", "admin")


def scratch_files(settings: Settings) -> list[Path]:
    scratch = Path(settings.data_dir) / "distribution-scratch"
    return list(scratch.iterdir()) if scratch.exists() else []


def test_a_bomb_is_refused_to_the_decompressing_subscription_only(
    service: RunningService,
    client: httpx.Client,
    make_subscriber: Callable[[], Receiver],
    delivery_settings: Settings,
) -> None:
    unpacking, keeping = make_subscriber(), make_subscriber()
    feed_id, _ = create_feed(client)
    unpack_id, _ = create_subscription(client, feed_id, unpacking.url + "/in", decompress=True)
    keep_id, _ = create_subscription(client, feed_id, keeping.url + "/in")
    bomb = gzip.compress(bytes(50_000_000))  # ~50 kB inflating 1000-fold: past the default ratio 100
    small = gzip.compress(bytes(500_000))  # the same ratio, but under the 1 MiB always allowed
    assert publish(service.url, feed_id, "bomb.bin.gz", bomb).status_code == 204
    assert publish(service.url, feed_id, "zeros.bin.gz", small).status_code == 204

    wait_until(lambda: len(sub_log(client, unpack_id, type="exp")) == 1)
    (delivered,) = unpacking.wait_for(1)  # in order: the bomb was refused first
    assert (delivered.path, delivered.body) == ("/in/zeros.bin", bytes(500_000))
    assert delivered.header("decompression_status") == "SUCCESS"
    assert [r.body for r in keeping.wait_for(2)] == [bomb, small]

    (expiry,) = sub_log(client, unpack_id, type="exp")
    assert expiry["expiryReason"] == "decompressionLimit"
    assert expiry["requestURI"].endswith("/in/bomb.bin.gz") and expiry["contentLength"] == len(bomb)
    assert expiry["attempts"] == 0
    wait_until(lambda: len(sub_log(client, unpack_id, type="del")) == 1)  # the small file's
    # A fixed wait on purpose: an absence has no condition to await: room for the bomb's delivery.
    time.sleep(0.3)
    assert len(sub_log(client, unpack_id, type="del")) == 1  # only: the bomb was never sent
    assert sub_log(client, unpack_id, expiryReason="decompressionLimit") == [expiry]
    assert sub_log(client, keep_id, type="exp") == []
    assert scratch_files(delivery_settings) == []


def test_the_absolute_bound_counts_the_bytes_produced(
    start_tuned: Callable[..., str],
    make_subscriber: Callable[[], Receiver],
    delivery_settings: Settings,
) -> None:
    url = start_tuned(
        delivery_decompress_max_ratio=1000,
        delivery_decompress_max_bytes=200_000,
        delivery_decompress_ratio_free_bytes=0,
    )
    subscriber = make_subscriber()
    with http_client(url, auth=ADMIN) as client:
        feed_id, _ = create_feed(client)
        sub_id, _ = create_subscription(client, feed_id, subscriber.url + "/in", decompress=True)
        exact = os.urandom(100_000).hex().encode()  # 200 000 bytes, compressing about 2:1
        over = exact + b"0"
        lying = bytearray(gzip.compress(over))
        lying[-4:] = (10).to_bytes(4, "little")  # the trailer claims 10 bytes: not believed
        for name, data in (("over.gz", over), ("lying.gz", bytes(lying)), ("exact.gz", exact)):
            packed = gzip.compress(data) if name != "lying.gz" else data
            assert publish(url, feed_id, name, packed).status_code == 204
        wait_until(lambda: len(sub_log(client, sub_id, type="exp")) == 2)
        (delivered,) = subscriber.wait_for(1)  # in order: the refused files came first
        assert (delivered.path, delivered.body) == ("/in/exact", exact)
        # The sender removes its scratch file once the subscriber has answered, then logs the
        # delivery: the subscriber's copy alone does not say the scratch file is gone yet.
        wait_until(lambda: len(sub_log(client, sub_id, type="del")) == 1)
        expiries = sub_log(client, sub_id, type="exp")
    assert [(r["requestURI"].rsplit("/", 1)[1], r["expiryReason"]) for r in expiries] == [
        ("over.gz", "decompressionLimit"),
        ("lying.gz", "decompressionLimit"),
    ]
    assert scratch_files(delivery_settings) == []
