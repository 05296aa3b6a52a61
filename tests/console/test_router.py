"""The message router in Chromium: topics, their reader and writer ACLs, consumer groups and their
lag, and a topic's latest messages, read with the internal mirror route so that a consumer group
loses nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import ADMIN, OPERATOR, assert_fits_phone, shoot, sign_in

TOPIC = "console.router.demo"
CLOSED = "console.router.closed"  # its reader ACL names only "auditors"


@pytest.fixture(scope="module")
def router_topic(platform: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=platform["router"], auth=ADMIN, timeout=30) as client:
        body = {"topicName": TOPIC, "topicDescription": "console demo stream"}
        assert client.post("/topics/create", json=body).status_code == 200
        assert client.put(f"/topics/{TOPIC}/producers/admin").status_code == 200
        assert client.put(f"/topics/{TOPIC}/consumers/operator").status_code == 200
        messages = [{"event": "linkDown", "n": n} for n in range(1, 4)]
        assert client.post(f"/events/{TOPIC}", json=messages).status_code == 200
        one = httpx.get(f"{client.base_url}/events/{TOPIC}/alarms/a1?limit=1&timeout=0", auth=OPERATOR)
        assert one.status_code == 200 and len(one.json()) == 1  # group "alarms": 2 still to fetch
        assert client.post("/topics/create", json={"topicName": CLOSED}).status_code == 200
        assert client.put(f"/topics/{CLOSED}/consumers/auditors").status_code == 200
        yield client


def test_topics_acls_and_latest_messages_without_consuming(page: Any, router_topic: httpx.Client) -> None:
    page.get_by_role("link", name="Message router").click()
    page.get_by_role("link", name=TOPIC).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(TOPIC)
    expect(page.locator("#reader-acl caption")).to_have_text("Reader ACL (fetch): enabled")
    expect(page.locator("#reader-acl").get_by_role("cell", name="operator")).to_be_visible()
    expect(page.locator("#writer-acl").get_by_role("cell", name="admin")).to_be_visible()
    rows = page.locator("#messages tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text('{"event":"linkDown","n":3}')  # newest first
    groups = page.locator("#groups tbody tr")
    expect(groups).to_have_count(1)
    expect(groups.first).to_have_text("alarms2")
    shoot(page, "router-topic")
    assert_fits_phone(page)
    seq = int(rows.nth(1).locator("th").inner_text())
    page.goto(f"/router/topics/{TOPIC}?after={seq}")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text('"n":3')
    # Looking took nothing away: a consumer group still gets every message.
    fetched = httpx.get(
        f"{router_topic.base_url}/events/{TOPIC}/console-check/c1?timeout=2000", auth=OPERATOR, timeout=30
    )
    assert [json.loads(m)["n"] for m in fetched.json()] == [1, 2, 3]
    page.reload()
    expect(groups).to_have_count(2)
    expect(groups.nth(1)).to_have_text("console-check0")  # drained


def test_without_the_mirror_read_the_page_says_what_reading_messages_needs(
    browser: Any, console: str, router_topic: httpx.Client
) -> None:
    """Messages are read through the router's internal mirror route (it consumes nothing), which
    only platform.node and administrators may call: anyone else sees the topic, its ACLs and
    groups, and what reading its messages would need, and the console does not ask the router."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=console)
    try:
        page = context.new_page()
        sign_in(page, f"/router/topics/{CLOSED}", *OPERATOR)
        expect(page.get_by_role("heading", level=1)).to_have_text(CLOSED)
        expect(page.locator("#reader-acl").get_by_role("cell", name="auditors")).to_be_visible()
        expect(page.locator("#messages-not-permitted")).to_contain_text(
            "platform.router.internal|mirror|call"
        )
        expect(page.get_by_role("alert")).to_have_count(0)
        expect(page.locator("#messages tbody tr")).to_have_text("No messages.")
    finally:
        context.close()
