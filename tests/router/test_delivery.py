"""The delivery contract over HTTP, alike on both engines (issue 24, points 4 and 5).

A fetch takes nothing from a consumer that left; one size limit (413); a publish that stored
only its first messages says how many; /health names the engine and is 503 while it is out of
reach.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import nats
import nats.js.api
import pytest

from netplatform.router.engines.jetstream import stream_name
from netplatform.router.events import Events
from netplatform.router.routes._common import Departure
from netplatform.router.routes.events import _ClaimedAnswer

from ..support.router_calls import drain, publish, router_error
from ..support.servers import free_port
from ..support.waiting import wait_until
from .conftest import ADMIN, Router, live_router, nats_url_or_skip

MIB = 1024 * 1024


def _lag(client: httpx.Client, topic: str, group: str) -> int | None:
    groups = client.get(f"/topics/{topic}/groups").json()["groups"]
    return next((found["lag"] for found in groups if found["name"] == group), None)


# -- point 4: a fetch takes nothing from a consumer that left --------------------------------------


def test_a_consumer_that_gave_up_on_a_long_poll_loses_nothing(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        assert client.get(f"/events/{name}/g/m", params={"timeout": 0}).json() == []  # the group exists
        with router.client() as impatient, pytest.raises(httpx.ReadTimeout):
            impatient.get(f"/events/{name}/g/m", params={"timeout": 4000}, timeout=0.5)
        publish(client, name, ["published after the consumer left"])
        # The abandoned poll (still running on the server until it notices) must not keep it.
        answer = client.get(f"/events/{name}/g/m", params={"timeout": 4000})
        assert answer.status_code == 200, answer.text
        assert answer.json() == ["published after the consumer left"]
        assert _lag(client, name, "g") == 0


def test_every_abandoned_poll_gives_its_messages_back_in_order(router: Router) -> None:
    """Three members wait at once and all leave; three publishes follow: the group's next
    fetches get every message, in publish order on the embedded engine. On JetStream the
    left-behind pull requests may each take and nak a message independently, so the redelivery
    order is not the publish order (docs/router.md, "Engines"): none is lost."""
    name = router.create_topic()
    sent = [f"m{i}" for i in range(3)]

    def leave() -> None:
        with router.client() as impatient, pytest.raises(httpx.ReadTimeout):
            impatient.get(f"/events/{name}/g/m", params={"timeout": 3000}, timeout=0.5)

    with router.client() as client:
        assert client.get(f"/events/{name}/g/m", params={"timeout": 0}).json() == []
        with ThreadPoolExecutor(3) as pool:
            for left in [pool.submit(leave) for _ in sent]:
                left.result()
        for message in sent:
            publish(client, name, [message])
        wait_until(lambda: _lag(client, name, "g") == len(sent))
        received = client.get(f"/events/{name}/g/m", params={"timeout": 4000}).json()
        got = received + drain(client, name, "g")
        assert (got if router.engine == "embedded" else sorted(got)) == sent


# -- point 5: one contract on both engines ---------------------------------------------------------


def test_a_message_over_the_limit_is_413_and_nothing_is_stored(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        big = "x" * (2 * MIB)
        too_large = client.post(f"/events/{name}", content=big, headers={"content-type": "text/plain"})
        assert router_error(too_large, 413)["mrstatus"] == 5004
        # One message over the limit in the middle of a batch: refused whole, before any is stored.
        batch = ["first", "y" * (MIB + 1), "third"]
        router_error(client.post(f"/events/{name}", json=batch), 413)
        at_limit = "z" * (MIB - 2)  # its JSON text, with the quotes, is exactly 1 MiB
        assert client.post(f"/events/{name}", json=[at_limit]).json()["count"] == 1
        assert drain(client, name, "g") == [f'"{at_limit}"']


def test_the_limit_is_a_setting(engine: str, tmp_path: Path) -> None:
    with live_router(engine, tmp_path, router_max_message_bytes=100) as router:
        name = router.create_topic()
        with router.client() as client:
            router_error(client.post(f"/events/{name}", json=["a" * 99]), 413)  # 101 bytes with quotes
            assert client.post(f"/events/{name}", json=["a" * 98]).json()["count"] == 1


def test_the_health_names_the_engine(router: Router) -> None:
    with router.client(None) as anonymous:
        health = anonymous.get("/health")
    assert health.status_code == 200, health.text
    assert health.json() == {"service": "router", "status": "UP", "engine": router.engine}


@pytest.fixture
def unreachable_router(tmp_path: Path) -> Iterator[Router]:
    nats_url_or_skip()
    with live_router("jetstream", tmp_path, router_nats_url=f"nats://127.0.0.1:{free_port()}") as router:
        yield router


def test_an_unreachable_jetstream_is_503_on_health(unreachable_router: Router) -> None:
    with unreachable_router.client(None) as anonymous:
        health = anonymous.get("/health")
    assert health.status_code == 503, health.text
    assert health.json()["status"] == "DOWN"
    assert health.json()["engine"] == "jetstream"
    assert "jetstream" in health.json()["reason"]


def _stream_limited_to(url: str, topic: str, max_msgs: int) -> None:
    """Have the topic's JetStream stream refuse messages beyond ``max_msgs`` (discard new), as a
    full disk or an operator's limit would: a publish then fails part-way."""

    async def limit() -> None:
        connection = await nats.connect(url)
        try:
            stream = connection.jetstream()
            config = (await stream.stream_info(stream_name(topic))).config
            config.max_msgs = max_msgs
            config.discard = nats.js.api.DiscardPolicy.NEW
            await stream.update_stream(config)
        finally:
            await connection.close()

    asyncio.run(limit())


def test_a_publish_stored_part_way_says_how_many(router: Router) -> None:
    if router.engine != "jetstream":
        pytest.skip("the embedded engine stores a publish in one transaction: all or nothing")
    name = router.create_topic()
    _stream_limited_to(nats_url_or_skip(), name, 3)
    with router.client() as client:
        answer = client.post(f"/events/{name}", json=[f"m{i}" for i in range(5)])
        assert answer.status_code == 207, answer.text
        body = answer.json()
        assert body["count"] == 3 and isinstance(body["serverTimeMs"], int)
        assert body["error"]["status"] == 503 and body["error"]["mrstatus"] == 3002
        assert drain(client, name, "g") == ['"m0"', '"m1"', '"m2"']
        # Nothing stored at all: 503, as before.
        router_error(client.post(f"/events/{name}", json=["m5"]), 503)


def test_a_complete_publish_answers_the_reference_shape(router: Router) -> None:
    name = router.create_topic()
    with router.client(ADMIN) as client:
        answer = client.post(f"/events/{name}", json=[1, 2])
        assert answer.status_code == 200
        assert set(answer.json()) == {"count", "serverTimeMs"}


# -- the answer settles its claim: the path real HTTP cannot time (a client gone at the send) -----


class _RecordedClaim:
    def __init__(self, messages: list[str]) -> None:
        self.messages = messages
        self.settled: list[str] = []

    async def commit(self) -> None:
        self.settled.append("commit")

    async def release(self) -> None:
        self.settled.append("release")


async def _answer(client_left: bool) -> tuple[list[str], list[dict[str, object]]]:
    """Serve a claimed answer through a fake ASGI server whose client is gone or stays."""
    stays = asyncio.Event()
    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        if not client_left:
            await stays.wait()  # a client that stays: nothing more until the response completes
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    claim = _RecordedClaim(["m1", "m2"])
    departure = Departure(receive)
    # A fixed wait on purpose: one turn of the loop: Departure's watch starts before the answer is served.
    await asyncio.sleep(0)
    events = Events.__new__(Events)  # settle() needs no topics nor engine: the claim settles itself
    answer = _ClaimedAnswer(claim, events, departure)
    await answer({"type": "http"}, receive, send)
    return claim.settled, sent


def test_an_answer_to_a_client_gone_gives_the_claim_back() -> None:
    settled, sent = asyncio.run(_answer(client_left=True))
    assert settled == ["release"]
    assert sent == []


def test_a_written_answer_commits_the_claim() -> None:
    settled, sent = asyncio.run(_answer(client_left=False))
    assert settled == ["commit"]
    assert [message["type"] for message in sent] == ["http.response.start", "http.response.body"]
