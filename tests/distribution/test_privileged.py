"""Privileged subscribers through real HTTP and HTTPS subscribers: a delivered file stays in the
spool and is offered again until the subscriber acknowledges it with
``DELETE /delete/{subId}/{publishId}`` (200; not privileged 401; unknown 404)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

import httpx

from ..conftest import RunningService
from ..support.distribution_calls import create_feed, create_subscription, publish, sub_log
from ..support.receiver import Receiver, RecordedRequest
from ..support.servers import http_client
from ..support.waiting import wait_until

ADMIN = ("admin", "admin")
RX = ("rxuser", "rx-pass")  # the delivery credentials of subscription_document()


def has_publish_id(publish_id: str, request: RecordedRequest) -> bool:
    return request.header("x-bus-dr-publish-id") == publish_id


def acknowledge(
    url: str, sub_id: int | str, publish_id: str, auth: tuple[str, str] | None = RX
) -> httpx.Response:
    with http_client(url, auth=auth) as client:
        return client.delete(f"/delete/{sub_id}/{publish_id}")


def queue_depth(client: httpx.Client) -> float:
    for line in client.get("/metrics").text.splitlines():
        if line.startswith("distribution_queue_depth"):
            return float(line.split()[-1])
    raise AssertionError("no distribution_queue_depth metric")


def test_a_file_is_offered_again_until_acknowledged(
    start_tuned: Callable[..., str], make_subscriber: Callable[[], Receiver]
) -> None:
    url = start_tuned(delivery_privileged_reoffer_s=0.5)
    privileged, ordinary = make_subscriber(), make_subscriber()
    with http_client(url, auth=ADMIN) as client:
        feed_id, _ = create_feed(client)
        sub_id, _ = create_subscription(client, feed_id, privileged.url + "/in", privilegedSubscriber=True)
        plain_id, _ = create_subscription(client, feed_id, ordinary.url + "/in")
        first = publish(url, feed_id, "a.csv", b"first").headers["X-BUS-DR-PUBLISH-ID"]
        second = publish(url, feed_id, "b.csv", b"second").headers["X-BUS-DR-PUBLISH-ID"]

        # Delivery order is pinned below; here a slow second publish may come after a re-offer.
        for publish_id, body in ((first, b"first"), (second, b"second")):  # each offered again
            again = privileged.wait_for(2, predicate=functools.partial(has_publish_id, publish_id))
            assert [r.body for r in again[:2]] == [body, body]

        assert acknowledge(url, sub_id, first).status_code == 200
        assert acknowledge(url, sub_id, second).status_code == 200
        assert acknowledge(url, sub_id, first).status_code == 404  # acknowledged already
        wait_until(lambda: queue_depth(client) == 0)
        # A fixed wait on purpose: an absence has no condition to await.
        time.sleep(0.3)  # an offer already on its way when acknowledged may still land
        seen = len(privileged.requests)
        # A fixed wait on purpose: an absence has no condition to await.
        time.sleep(1.5)  # three intervals: nothing more is offered
        assert len(privileged.requests) == seen
        assert len(ordinary.requests) == 2  # ordinary subscriptions get each file once
        wait_until(lambda: len(sub_log(client, sub_id, type="del")) == seen)
        assert sub_log(client, plain_id, type="exp") == []


def test_delivered_files_wait_without_holding_up_the_queue(
    service: RunningService, client: httpx.Client, subscriber: Receiver
) -> None:
    feed_id, _ = create_feed(client)
    sub_id, _ = create_subscription(client, feed_id, subscriber.url + "/in", privilegedSubscriber=True)
    ids = [publish(service.url, feed_id, f"f{n}", b"x").headers["X-BUS-DR-PUBLISH-ID"] for n in range(3)]
    delivered = subscriber.wait_for(3)
    assert [r.header("x-bus-dr-publish-id") for r in delivered] == ids
    # A fixed wait on purpose: an absence has no condition to await.
    time.sleep(0.5)  # the default interval (300 s) is far away: no second offer yet
    assert len(subscriber.requests) == 3
    assert queue_depth(client) == 3  # still spooled, awaiting acknowledgement
    assert acknowledge(service.url, sub_id, ids[1]).status_code == 200
    assert queue_depth(client) == 2


def test_acknowledgement_refusals(
    service: RunningService, client: httpx.Client, subscriber: Receiver
) -> None:
    feed_id, _ = create_feed(client)
    sub_id, _ = create_subscription(client, feed_id, subscriber.url + "/in", privilegedSubscriber=True)
    plain_id, _ = create_subscription(client, feed_id, subscriber.url + "/plain")
    publish_id = publish(service.url, feed_id, "f", b"x").headers["X-BUS-DR-PUBLISH-ID"]
    subscriber.wait_for(2)

    not_privileged = acknowledge(service.url, plain_id, publish_id)
    assert (not_privileged.status_code, not_privileged.text) == (401, "Not a privileged subscription.")
    for auth in (None, ("rxuser", "wrong"), ADMIN):
        refused = acknowledge(service.url, sub_id, publish_id, auth=auth)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == 'Basic realm="delete"'
    for sub, pub, text in (
        (999, publish_id, "Missing or bad subscription number."),
        ("x", publish_id, "Missing or bad subscription number."),
        (sub_id, "1.nowhere", "No such file for this subscription."),
    ):
        unknown = acknowledge(service.url, sub, pub)
        assert (unknown.status_code, unknown.text) == (404, text)
    assert acknowledge(service.url, sub_id, publish_id).status_code == 200
