"""Distribution in Chromium: feeds listed through the bus controller, a feed's subscriptions, a
file published from the browser as the feed's publisher, delivered to one subscription and refused
by the other, and the log timeline filtered by record type, status and time range."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from ..support.receiver import Receiver
from ..support.waiting import wait_until
from .conftest import ADMIN, OPERATOR, SHOTS, assert_fits_phone, assert_labelled, shoot
from .test_sessions import signed_in

SUBS = ("ok", "bad")  # the sink answers 204 under /ok/ and 404 (not retryable) elsewhere


@pytest.fixture(scope="module")
def feed(platform: dict[str, str], sink: Receiver) -> Iterator[dict[str, Any]]:
    with httpx.Client(base_url=platform["bus"], auth=ADMIN, timeout=60) as bus:
        settings = {
            "busName": "lab1",
            "topicNsRoot": "org.example.bus",
            "drProvUrl": platform["distribution"],
        }
        assert (
            bus.put("/bus", json={**settings, "bridgeAdminTopic": "org.example.bus.admin"}).status_code == 200
        )
        site = {"svcLocationName": "dc-central-1", "svcLayer": "central"}
        assert bus.post("/svcLocations", json=site).status_code == 200
        subs = [
            {
                "svcLocationName": "dc-central-1",
                "deliveryURL": f"{sink.url}/{name}",
                "username": f"rx{name}",
                "userpwd": "rx-pass",
            }
            for name in SUBS
        ]
        body = {
            "feedName": "pm-counters",
            "feedVersion": "1.0",
            "owner": "opsteam",
            "asprClassification": "unclassified",
            "feedDescription": "hourly counters",
            "pubs": [{"svcLocationName": "dc-central-1"}],
            "subs": subs,
        }
        created = bus.post("/feeds", json=body)
        assert created.status_code == 200 and created.json()["status"] == "VALID", created.text
        yield created.json()


@pytest.fixture(scope="module")
def direct_sub(platform: dict[str, str], feed: dict[str, Any], sink: Receiver) -> str:
    """A suspended subscription made at the distribution service itself, which the bus does not know."""
    headers = {"X-BUS-DR-ON-BEHALF-OF": "ops", "Content-Type": "application/vnd.bus-dr.subscription"}
    body = {
        "delivery": {"url": f"{sink.url}/direct", "user": "rxdirect", "password": "pw"},
        "suspend": True,
        "metadataOnly": False,
        "groupid": 0,
    }
    answer = httpx.post(
        f"{platform['distribution']}/subscribe/{feed['feedId']}", json=body, headers=headers, auth=ADMIN
    )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["links"]["self"]).rsplit("/", 1)[-1]


def test_subscriptions_come_from_the_distribution_service(
    page: Any, platform: dict[str, str], feed: dict[str, Any], direct_sub: str
) -> None:
    listed = httpx.get(
        f"{platform['distribution']}/subscribe/{feed['feedId']}",
        headers={"X-BUS-DR-ON-BEHALF-OF": "ops"},
        auth=ADMIN,
    )
    assert listed.status_code == 200, listed.text
    page.goto(f"/distribution/feeds/{feed['feedId']}")
    row = page.locator("#subscriptions").get_by_role("row").filter(has_text="/direct")
    expect(page.locator("#subscriptions caption")).to_have_text("Subscriptions: 3")
    expect(row).to_contain_text(f"{direct_sub}")
    expect(row).to_contain_text("rxdirect")
    expect(row).to_contain_text("not provisioned by the bus")


def test_feeds_subscriptions_publish_and_the_timeline(
    page: Any, platform: dict[str, str], feed: dict[str, Any], sink: Receiver, tmp_path: Path
) -> None:
    page.get_by_role("link", name="Distribution").click()
    page.get_by_role("link", name="pm-counters 1.0").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("pm-counters")
    expect(page.locator("#subscriptions").get_by_role("row").filter(has_text="/ok")).to_contain_text("rxok")
    assert_labelled(page)
    upload = tmp_path / "counters.csv"
    upload.write_text("cell,count\nA,7\n")
    # The bus answered the publisher's password when it made it (the feed fixture kept it); its
    # GET answers mask it, so the console asks for it.
    page.get_by_label("Password of that publisher").fill(feed["pubs"][0]["userpwd"])
    page.get_by_label("File", exact=True).set_input_files(str(upload))
    page.get_by_label("File name on the feed").fill("counters-0800.csv")
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_contain_text("Published: publish id")
    assert feed["pubs"][0]["userpwd"] not in page.content(), "the publisher's password stays on the server"
    delivered = sink.wait_for(2, predicate=lambda request: request.path.endswith("/counters-0800.csv"))
    assert {request.path for request in delivered} == {"/ok/counters-0800.csv", "/bad/counters-0800.csv"}
    assert delivered[0].body == b"cell,count\nA,7\n"
    # The endpoint has the file before the service has logged its answer: wait for both records,
    # as a person would look again, before asking for the timeline.
    for sub in feed["subs"]:
        wait_for_delivery_record(platform, str(sub["subId"]), "counters-0800.csv")
    expect(page.locator("#records .record-pub")).to_have_count(1)
    page.get_by_label("Record type").select_option("delivery")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#records .record-del")).to_have_count(2)
    page.get_by_label("Status", exact=True).select_option("failure")
    page.get_by_role("button", name="Filter").click()
    failed = page.locator("#records .record-del")
    expect(failed).to_have_count(1)
    expect(failed).to_contain_text("status 404")
    expect(failed).to_contain_text("/bad/counters-0800.csv")
    shoot(page, "distribution-feed")
    assert_fits_phone(page)
    # The same file in one subscription's timeline, a time range, and the failed one's outcome chart.
    ok = next(sub for sub in feed["subs"] if sub["deliveryURL"].endswith("/ok"))
    page.goto(f"/distribution/feeds/{feed['feedId']}")
    page.get_by_label("Log", exact=True).select_option(f"subscription {ok['subId']}")
    page.get_by_label("Record type").select_option("delivery")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("heading", name=f"Log timeline of subscription {ok['subId']}")).to_be_visible()
    expect(page.locator("#records .record-del")).to_contain_text("status 204")
    later = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    page.get_by_label("From (UTC)").fill(later)
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#records")).to_have_text("No log records.")
    bad = next(sub for sub in feed["subs"] if sub["deliveryURL"].endswith("/bad"))
    page.goto(f"/distribution/feeds/{feed['feedId']}?sub={bad['subId']}")
    chart = page.get_by_role("img", name=f"Delivery outcomes of subscription {bad['subId']} over time")
    expect(chart).to_be_visible()
    expect(chart.locator("rect.outcome-failed")).to_have_count(1)
    expect(page.locator("#outcome-totals")).to_contain_text("delivered: 0")
    expect(page.locator("#outcome-totals")).to_contain_text("failed: 1")
    shoot(page, "distribution-subscription")
    assert_fits_phone(page)
    # A 404 is not retried: the service ends the file with an expiry record, found by its reason.
    page.get_by_label("Record type").select_option("expiry")
    page.get_by_label("Expiry reason").select_option("notRetryable")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"[?&]expiryReason=notRetryable"))
    expired = page.locator("#records .record-exp")
    expect(expired).to_have_count(1)
    expect(expired).to_contain_text("notRetryable after 1 attempts")
    expect(page.locator("#records .record-del")).to_have_count(0)


def test_a_refused_publish_shows_the_apis_answer(page: Any, feed: dict[str, Any], tmp_path: Path) -> None:
    page.goto(f"/distribution/feeds/{feed['feedId']}")
    upload = tmp_path / "x.bin"
    upload.write_bytes(b"x")
    page.get_by_label("Password of that publisher").fill(feed["pubs"][0]["userpwd"])
    page.get_by_label("File", exact=True).set_input_files(str(upload))
    page.get_by_label("File name on the feed").fill("a/b")
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("alert")).to_have_text("The file name must be given and hold no '/'.")


def test_publish_without_the_session_token_is_403_and_publishes_nothing(
    console: str, platform: dict[str, str], feed: dict[str, Any]
) -> None:
    pub = feed["pubs"][0]["pubId"]
    with httpx.Client(base_url=console, timeout=30) as client:
        token = signed_in(client)
        for forged in ("", "forged", token[:-1]):
            answer = client.post(
                f"/distribution/feeds/{feed['feedId']}/publish",
                data={"pub": pub, "fileId": "forged.csv", **({"csrf": forged} if forged else {})},
                files={"file": ("forged.csv", b"x")},
            )
            assert answer.status_code == 403
    log = httpx.get(
        f"{platform['distribution']}/feedlog/{feed['feedId']}", params={"filename": "forged.csv"}, auth=ADMIN
    )
    assert log.status_code == 200 and log.json() == []


def test_without_the_feed_writes_no_publish_is_offered_and_a_forged_one_is_refused(
    console: str, platform: dict[str, str], feed: dict[str, Any]
) -> None:
    """The console publishes with the feed publisher's credentials, so the service cannot tell who
    asked: the console itself offers and accepts a publish only from holders of the feed writes."""
    pub = feed["pubs"][0]["pubId"]
    with httpx.Client(base_url=console, timeout=30) as client:
        token = signed_in(client, *OPERATOR)  # bus and distribution reader: may read, not manage, feeds
        page = client.get(f"/distribution/feeds/{feed['feedId']}")
        assert page.status_code == 200, page.text
        assert "platform.distribution.api|feeds|write" in page.text
        assert 'name="pub"' not in page.text, "no publish form for a reader"
        answer = client.post(
            f"/distribution/feeds/{feed['feedId']}/publish",
            data={"pub": pub, "fileId": "not-mine.csv", "csrf": token},
            files={"file": ("not-mine.csv", b"x")},
        )
        assert answer.status_code == 403
        assert "Publishing from the console needs platform.distribution.api|feeds|write" in answer.text
    log = httpx.get(
        f"{platform['distribution']}/feedlog/{feed['feedId']}",
        params={"filename": "not-mine.csv"},
        auth=ADMIN,
    )
    assert log.status_code == 200 and log.json() == []


@pytest.fixture(scope="module")
def failing_feed(platform: dict[str, str], feed: dict[str, Any], sink: Receiver) -> dict[str, Any]:
    """A second feed whose one subscriber refuses (404) what it gets, with a file published to it."""
    body = {
        "feedName": "alarms",
        "feedVersion": "2.0",
        "owner": "opsteam",
        "asprClassification": "unclassified",
        "feedDescription": "alarm dumps",
        "pubs": [{"svcLocationName": "dc-central-1"}],
        "subs": [
            {
                "svcLocationName": "dc-central-1",
                "deliveryURL": f"{sink.url}/refusing",
                "username": "rxalarm",
                "userpwd": "rx-pass",
            }
        ],
    }
    created = httpx.post(f"{platform['bus']}/feeds", json=body, auth=ADMIN, timeout=60)
    assert created.status_code == 200 and created.json()["status"] == "VALID", created.text
    made = created.json()
    pub = made["pubs"][0]
    published = httpx.put(
        f"{platform['distribution']}/publish/{made['feedId']}/alarm-dump.txt",
        content=b"major: link down",
        headers={"Content-Type": "text/plain"},
        auth=(pub["username"], pub["userpwd"]),
    )
    assert published.status_code == 204, published.text
    sink.wait_for(1, predicate=lambda request: request.path == "/refusing/alarm-dump.txt")
    wait_for_delivery_record(platform, str(made["subs"][0]["subId"]))
    return {**made, "publishId": published.headers["X-BUS-DR-PUBLISH-ID"]}


def test_the_overview_lists_recent_delivery_failures_with_a_link_to_the_log(
    page: Any, platform: dict[str, str], failing_feed: dict[str, Any]
) -> None:
    feed_id, sub_id = str(failing_feed["feedId"]), str(failing_feed["subs"][0]["subId"])
    wait_for_refusal_counted(platform)
    overview_listing(page, "alarm-dump.txt")
    section = page.get_by_role("region", name="Recent delivery failures")
    row = section.get_by_role("row").filter(has_text="alarm-dump.txt")
    expect(row).to_have_count(1)
    expect(row).to_contain_text(f"alarms 2.0 (feed {feed_id})")
    expect(row.get_by_role("cell", name="404", exact=True)).to_be_visible()
    expect(row).to_contain_text(failing_feed["publishId"])
    expect(row.get_by_role("cell", name=sub_id, exact=True)).to_be_visible()
    expect(
        section.get_by_role("img", name=re.compile(r"^Delivery failures per hour, last 24 hours: \d+$"))
    ).to_be_visible()
    expect(section.locator("#failures caption")).to_contain_text("Failed deliveries:")
    SHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SHOTS / "overview-failures.png"))
    # The distribution card: its delivery queue (the 404 was not retried: nothing waits for it) and
    # the attempts by outcome, the refusal among them.
    card = page.locator("#service-distribution")
    expect(card.locator('[data-figure="queue"]')).to_have_text(re.compile(r"^\d+$"))
    expect(card.locator('[data-figure="deliveries-refused"]')).to_have_text(re.compile(r"^[1-9]\d*$"))
    assert_fits_phone(page)
    row.get_by_role("link", name=f"Log of subscription {sub_id}").click()
    expect(page.get_by_role("heading", name=f"Log timeline of subscription {sub_id}")).to_be_visible()
    records = page.locator("#records .record-del")
    expect(records).to_have_count(1)
    expect(records).to_contain_text("status 404")
    expect(records).to_contain_text("/refusing/alarm-dump.txt")


def overview_listing(page: Any, file_name: str, timeout_s: float = 20) -> None:
    """The overview, loaded again (as a person presses "Refresh now") until its failures list
    the file. A first load right after the fixtures sometimes misses a failure that the
    distribution service already lists (in about one run in three on 2026-11-25, the code of the
    session before too; the cause is not found yet): the row must appear, if not at once."""

    def listed() -> bool:
        page.goto("/")
        return bool(page.locator("#failures").get_by_role("row").filter(has_text=file_name).count())

    wait_until(listed, timeout=timeout_s, what=f"{file_name} among the overview's failures", interval=0.5)


def wait_for_delivery_record(platform: dict[str, str], sub_id: str, filename: str | None = None) -> None:
    """The log record is written once the endpoint's answer is back at the service."""
    params = {"type": "del", **({"filename": filename} if filename else {})}

    def recorded() -> bool:
        log = httpx.get(f"{platform['distribution']}/sublog/{sub_id}", params=params, auth=ADMIN, timeout=10)
        return log.status_code == 200 and bool(log.json())

    wait_until(recorded, timeout=30, what=f"a delivery record of subscription {sub_id}")


def wait_for_refusal_counted(platform: dict[str, str]) -> None:
    """The service counts an attempt in its /metrics just after logging it."""

    def counted() -> bool:
        metrics = httpx.get(f"{platform['distribution']}/metrics", auth=ADMIN, timeout=10)
        refused = r'^distribution_delivery_attempts_total\{outcome="refused"\} [1-9]'
        return re.search(refused, metrics.text, re.M) is not None

    wait_until(counted, timeout=30, what="a refused delivery counted in the distribution service's /metrics")


@pytest.fixture(scope="module")
def direct_feed(platform: dict[str, str], sink: Receiver) -> dict[str, str]:
    """A feed and a subscription made at the distribution service itself (the bus knows neither);
    the subscriber refuses the file published to it."""
    dist = platform["distribution"]
    headers = {"X-BUS-DR-ON-BEHALF-OF": "ops"}
    body = {
        "name": "direct-dumps",
        "version": "3.1",
        "description": "made without the bus",
        "authorization": {
            "classification": "unclassified",
            "endpoint_ids": [{"id": "dumper", "password": "dump-pw"}],
            "endpoint_addrs": [],
        },
    }
    created = httpx.post(f"{dist}/", json=body, headers=headers, auth=ADMIN, timeout=30)
    assert created.status_code in (200, 201), created.text
    feed_id = str(created.json()["links"]["self"]).rsplit("/", 1)[-1]
    subscription = {
        "delivery": {"url": f"{sink.url}/direct-refusing", "user": "rxdump", "password": "pw"},
        "metadataOnly": False,
        "groupid": 0,
    }
    made = httpx.post(f"{dist}/subscribe/{feed_id}", json=subscription, headers=headers, auth=ADMIN)
    assert made.status_code == 201, made.text
    sub_id = str(made.json()["links"]["self"]).rsplit("/", 1)[-1]
    published = httpx.put(
        f"{dist}/publish/{feed_id}/core.dump",
        content=b"\x00core",
        headers={"Content-Type": "application/octet-stream"},
        auth=("dumper", "dump-pw"),
    )
    assert published.status_code == 204, published.text
    wait_for_delivery_record(platform, sub_id)
    return {"feedId": feed_id, "subId": sub_id}


def test_a_failure_on_a_feed_the_bus_does_not_know_links_to_its_log(
    page: Any, direct_feed: dict[str, str]
) -> None:
    overview_listing(page, "core.dump")
    row = page.locator("#failures").get_by_role("row").filter(has_text="core.dump")
    expect(row).to_contain_text(f"direct-dumps 3.1 (feed {direct_feed['feedId']})")
    row.get_by_role("link", name=f"Log of subscription {direct_feed['subId']}").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("direct-dumps")
    expect(page.get_by_text("not provisioned by the bus").first).to_be_visible()
    expect(
        page.locator("#subscriptions").get_by_role("row").filter(has_text="/direct-refusing")
    ).to_contain_text("rxdump")
    expect(page.locator("#records .record-del")).to_contain_text("status 404")
    # Publishing there: as one of the feed's endpoint ids (the bus has no publisher for it), with
    # the password typed in (the distribution service keeps it hashed and never answers it).
    publish = page.get_by_role("region", name="Publish a file")
    expect(publish.get_by_label("As publisher (the feed's endpoint ids)")).to_have_value("dumper")
    publish.get_by_label("Password of that endpoint id").fill("dump-pw")
    publish.get_by_label("File", exact=True).set_input_files(
        {"name": "second.dump", "mimeType": "application/octet-stream", "buffer": b"\x00again"}
    )
    publish.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_contain_text("Published: publish id")
    expect(page.locator("#records .record-pub").filter(has_text="second.dump")).to_have_count(1)
    assert "dump-pw" not in page.content(), "the endpoint's password stays on the server"


def test_the_feed_list_has_the_feeds_the_bus_does_not_know(
    page: Any, feed: dict[str, Any], direct_feed: dict[str, str]
) -> None:
    page.goto("/distribution")
    expect(page.locator("#feeds").get_by_role("link", name="pm-counters 1.0")).to_be_visible()
    direct = page.locator("#direct-feeds")
    expect(direct.get_by_role("link", name="pm-counters 1.0")).to_have_count(0)  # the bus's, listed above
    row = direct.get_by_role("row").filter(has_text="direct-dumps 3.1")
    expect(row).to_contain_text(direct_feed["feedId"])
    expect(row).to_contain_text("unclassified")
    expect(row).to_contain_text("live")
    shoot(page, "distribution-feeds")
    assert_fits_phone(page)
    row.get_by_role("link", name="direct-dumps 3.1").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("direct-dumps")
    expect(
        page.locator("#subscriptions").get_by_role("row").filter(has_text="/direct-refusing")
    ).to_be_visible()
