"""Contract tests of the message router's engines (engines/base.py), driven directly, no HTTP.

Every contract test runs on each engine: ``jetstream`` against a NATS server with JetStream
(NETPLATFORM_TEST_NATS_URL, else nats://127.0.0.1:4222 when it answers; `.ci/nats` starts one)
and ``embedded`` on this test's database. Topics are unique per test and dropped afterwards,
so the shared NATS server does not fill up.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import cast
from urllib.parse import urlsplit

import anyio
import pytest

from netplatform.router.engines.base import Engine, EngineUnavailable, MessageTooLarge, StreamSpec
from netplatform.router.engines.embedded import EmbeddedEngine
from netplatform.router.engines.jetstream import JetStreamEngine, stream_name
from netplatform.settings import Settings
from netplatform.store.db import database_for

from ..support.databases import migrate
from ..support.servers import free_port
from .conftest import nats_url_or_skip

pytestmark = pytest.mark.anyio

RETENTION_S = 3600.0
EMBEDDED_MODULE = "netplatform.router.engines.embedded"

EngineFactory = Callable[[], Engine]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def nats_url() -> str:
    return nats_url_or_skip()


def _embedded_factory(request: pytest.FixtureRequest) -> EngineFactory:
    """The embedded engine on this test's database (migrated), or a skip while it is unwritten."""
    settings: Settings = request.getfixturevalue("settings")
    embedded_engine = EmbeddedEngine
    migrate(settings)
    database = database_for(settings)
    return lambda: cast(Engine, embedded_engine(database, retention_s=RETENTION_S))


@pytest.fixture(params=["jetstream", "embedded"])
def engine_factory(request: pytest.FixtureRequest) -> EngineFactory:
    """Makes engines of one kind on one backing store, so a second engine sees the first's data."""
    if request.param == "jetstream":
        url = request.getfixturevalue("nats_url")
        return lambda: JetStreamEngine(url, retention_s=RETENTION_S)
    return _embedded_factory(request)


class Harness:
    """Opens engines and topics for one test; closes the engines and drops the topics after it."""

    def __init__(self, factory: EngineFactory) -> None:
        self.factory = factory
        self.opened: list[Engine] = []
        self.topics: list[str] = []

    async def engine(self) -> Engine:
        engine = self.factory()
        await engine.start()
        self.opened.append(engine)
        return engine

    async def topic(self, engine: Engine, suffix: str = "alarms") -> str:
        name = f"org.example.bus.t{uuid.uuid4().hex[:12]}.{suffix}"
        await engine.ensure_stream(StreamSpec(topic=name))
        self.topics.append(name)
        return name

    async def cleanup(self) -> None:
        engine = await self.engine()
        for topic in self.topics:
            await engine.drop_stream(topic)
        for opened in self.opened:
            await opened.close()


@pytest.fixture
async def harness(engine_factory: EngineFactory) -> AsyncIterator[Harness]:
    running = Harness(engine_factory)
    yield running
    await running.cleanup()


async def take(
    engine: Engine,
    topic: str,
    group: str,
    member: str,
    *,
    limit: int,
    timeout_s: float,
    abandoned: asyncio.Event | None = None,
) -> list[str]:
    """A fetch whose answer was written: the claim is committed."""
    claim = await engine.fetch(topic, group, member, limit=limit, timeout_s=timeout_s, abandoned=abandoned)
    await claim.commit()
    return claim.messages


async def drain(engine: Engine, topic: str, group: str, member: str = "m1", limit: int = 50) -> list[str]:
    """Everything the group has still to get, fetched ``limit`` at a time."""
    received: list[str] = []
    while batch := await take(engine, topic, group, member, limit=limit, timeout_s=0.2):
        assert len(batch) <= limit
        received += batch
    return received


def numbered(count: int, start: int = 0) -> list[str]:
    return [f"message {i}" for i in range(start, start + count)]


# -- the contract ------------------------------------------------------------------------------


async def test_order_is_kept_per_topic_across_batches(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    sent: list[str] = []
    for start in range(0, 350, 100):
        batch = numbered(min(100, 350 - start), start)
        assert await engine.publish(topic, batch) == len(batch)
        sent += batch
    assert await engine.publish(topic, ["single"]) == 1
    assert await drain(engine, topic, "g") == [*sent, "single"]


async def test_messages_come_back_as_sent(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    odd = ['{"json": [1, 2]}', "", "unicode: é ✓ 漢字", "line one\nline two", " spaced "]
    await engine.publish(topic, odd)
    assert await drain(engine, topic, "g") == odd


async def test_a_new_group_starts_at_the_oldest_message(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await engine.publish(topic, numbered(5))
    assert await take(engine, topic, "early", "m", limit=2, timeout_s=1) == numbered(2)
    await engine.publish(topic, numbered(3, 5))
    # A group that reads for the first time now still gets everything retained, oldest first.
    assert await drain(engine, topic, "late") == numbered(8)
    assert await drain(engine, topic, "early") == numbered(6, 2)


async def test_two_groups_each_get_everything(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await engine.publish(topic, numbered(120))
    first, second = await asyncio.gather(drain(engine, topic, "g1"), drain(engine, topic, "g2"))
    assert first == numbered(120)
    assert second == numbered(120)


async def test_members_of_one_group_split_the_messages(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    sent = numbered(600)
    for start in range(0, 600, 100):
        await engine.publish(topic, sent[start : start + 100])
    shares = await asyncio.gather(*(drain(engine, topic, "shared", f"member{i}", limit=7) for i in range(2)))
    assert all(shares), "both members got a share"
    assert sorted(shares[0] + shares[1], key=sent.index) == sent  # none lost, none twice
    for share in shares:  # each member sees its share in publish order
        assert share == sorted(share, key=sent.index)


async def test_members_on_two_engines_split_the_messages(harness: Harness) -> None:
    """Two router processes (one engine each) serving members of one group share its position."""
    one, two = await harness.engine(), await harness.engine()
    topic = await harness.topic(one)
    sent = numbered(300)
    await one.publish(topic, sent)
    shares = await asyncio.gather(drain(one, topic, "shared", "a", 10), drain(two, topic, "shared", "b", 10))
    assert sorted(shares[0] + shares[1], key=sent.index) == sent


async def test_long_poll_wakes_on_a_publish(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    assert await take(engine, topic, "g", "m", limit=10, timeout_s=0.1) == []  # the group exists now
    waiting = asyncio.create_task(take(engine, topic, "g", "m", limit=10, timeout_s=20))
    # A fixed wait on purpose: the take must be pending when the publish comes (no outside sign).
    await asyncio.sleep(0.5)
    assert not waiting.done()
    await engine.publish(topic, ["wake up"])
    assert await asyncio.wait_for(waiting, 10) == ["wake up"]  # woken by the publish, not its 20 s


async def test_long_poll_on_a_group_that_never_read(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    waiting = asyncio.create_task(take(engine, topic, "fresh", "m", limit=10, timeout_s=20))
    # A fixed wait on purpose: the take must be pending when the publish comes (no outside sign).
    await asyncio.sleep(0.5)
    await engine.publish(topic, ["first", "second"])
    received = await asyncio.wait_for(waiting, 10)
    assert received in (["first"], ["first", "second"])
    assert received + await drain(engine, topic, "fresh") == ["first", "second"]


async def test_an_empty_list_after_the_timeout(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    started = time.monotonic()
    assert await take(engine, topic, "g", "m", limit=10, timeout_s=0.5) == []
    assert time.monotonic() - started >= 0.4  # it waited for the timeout asked
    await engine.publish(topic, ["one"])
    assert await drain(engine, topic, "g") == ["one"]
    started = time.monotonic()
    assert await take(engine, topic, "g", "m", limit=10, timeout_s=0.5) == []
    assert time.monotonic() - started >= 0.4  # it waited for the timeout asked


async def test_a_group_continues_where_it_stopped_on_a_new_engine(harness: Harness) -> None:
    first = await harness.engine()
    topic = await harness.topic(first)
    await first.publish(topic, numbered(10))
    assert await take(first, topic, "g", "m", limit=4, timeout_s=1) == numbered(4)
    await first.close()
    second = await harness.engine()
    assert await second.group_positions(topic) == {"g": 6}
    assert await drain(second, topic, "g") == numbered(6, 4)


async def test_group_positions_are_each_groups_lag(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await engine.publish(topic, numbered(10))
    await take(engine, topic, "slow", "m", limit=3, timeout_s=1)
    await drain(engine, topic, "fast")
    assert await engine.group_positions(topic) == {"slow": 7, "fast": 0}
    await engine.publish(topic, numbered(2, 10))
    assert await engine.group_positions(topic) == {"slow": 9, "fast": 2}


async def test_drop_stream_removes_messages_and_positions(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await engine.publish(topic, numbered(5))
    await take(engine, topic, "g", "m", limit=2, timeout_s=1)
    await engine.drop_stream(topic)
    await engine.drop_stream(topic)  # absent: no error
    await engine.drop_stream(f"never.created.{uuid.uuid4().hex}")
    await engine.ensure_stream(StreamSpec(topic=topic))
    assert await engine.group_positions(topic) == {}
    assert await take(engine, topic, "g", "m", limit=10, timeout_s=0.2) == []
    await engine.publish(topic, ["after"])
    assert await drain(engine, topic, "g") == ["after"]


async def test_a_stream_recreated_by_another_engine_serves_its_groups(harness: Harness) -> None:
    """Another router process drops and recreates the topic: this one's groups start it afresh."""
    one, two = await harness.engine(), await harness.engine()
    topic = await harness.topic(one)
    await one.publish(topic, ["old"])
    assert await take(one, topic, "g", "m", limit=10, timeout_s=1) == ["old"]
    await two.drop_stream(topic)
    await two.ensure_stream(StreamSpec(topic=topic))
    await two.publish(topic, ["new"])
    assert await take(one, topic, "g", "m", limit=10, timeout_s=1) == ["new"]


async def test_ensure_stream_twice_keeps_the_stream(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await engine.publish(topic, ["kept"])
    await engine.ensure_stream(StreamSpec(topic=topic))
    await engine.ensure_stream(StreamSpec(topic=topic, partitions=3, replicas=3))  # other wishes: kept
    assert await drain(engine, topic, "g") == ["kept"]


async def test_replicas_beyond_the_cluster_are_capped(harness: Harness) -> None:
    engine = await harness.engine()
    topic = f"org.example.bus.t{uuid.uuid4().hex[:12]}.replicated"
    await engine.ensure_stream(StreamSpec(topic=topic, partitions=2, replicas=3))
    harness.topics.append(topic)
    await engine.publish(topic, ["a", "b"])
    assert await drain(engine, topic, "g") == ["a", "b"]


async def test_topics_differing_in_punctuation_are_separate(harness: Harness) -> None:
    engine = await harness.engine()
    base = f"org.example.t{uuid.uuid4().hex[:8]}"
    names = [f"{base}.a.b", f"{base}.a_b", f"{base}.a-b", f"{base}.a b", f"{base}.a>b*"]
    for name in names:
        await engine.ensure_stream(StreamSpec(topic=name))
        harness.topics.append(name)
        await engine.publish(name, [name])
    for name in names:
        assert await drain(engine, name, "g.with dots>") == [name]


async def test_close_ends_a_pending_fetch(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await take(engine, topic, "g", "m", limit=1, timeout_s=0.1)
    waiting = asyncio.create_task(take(engine, topic, "g", "m", limit=10, timeout_s=30))
    # A fixed wait on purpose: the take must be pending when the engine closes (no outside sign).
    await asyncio.sleep(0.3)
    await asyncio.wait_for(engine.close(), 10)
    assert await asyncio.wait_for(waiting, 10) == []


# -- JetStream only: an unreachable or lost server ------------------------------------------------


async def test_no_server_gives_engine_unavailable_promptly() -> None:
    engine = JetStreamEngine(f"nats://127.0.0.1:{free_port()}", retention_s=RETENTION_S)
    # Refused on its own (a refused connection), not by this test's bound.
    with pytest.raises(EngineUnavailable):
        await asyncio.wait_for(engine.start(), 10)
    with pytest.raises(EngineUnavailable):
        await asyncio.wait_for(engine.publish("org.example.t", ["x"]), 10)
    await engine.close()


async def test_a_silent_server_gives_engine_unavailable_in_bounded_time() -> None:
    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts, never greets
        writer.close()

    server = await asyncio.start_server(mute, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        engine = JetStreamEngine(f"nats://127.0.0.1:{port}", retention_s=RETENTION_S)
        # The engine's own connect timeout ends the wait, not this test's bound.
        with pytest.raises(EngineUnavailable):
            await asyncio.wait_for(engine.start(), 20)
        await engine.close()
    finally:
        server.close()


async def test_publish_without_a_stream_fails_promptly(nats_url: str) -> None:
    engine = JetStreamEngine(nats_url, retention_s=RETENTION_S)
    await engine.start()
    with pytest.raises(EngineUnavailable, match="no JetStream stream"):
        await asyncio.wait_for(engine.publish(f"org.example.never.{uuid.uuid4().hex}", ["x", "y"]), 10)
    # Refused at once, not after the take's own 5 s: a bound below it shows which.
    with pytest.raises(EngineUnavailable, match="no JetStream stream"):
        never = f"org.example.never.{uuid.uuid4().hex}"
        await asyncio.wait_for(take(engine, never, "g", "m", limit=1, timeout_s=30), 10)
    await engine.close()


class Proxy:
    """A TCP proxy to the NATS server that a test can cut, as a server crash or network loss would."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 4222)
        self.server: asyncio.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []

    async def start(self, port: int = 0) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", port)
        return f"nats://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def cut(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in self.writers:
            writer.close()
        self.writers.clear()
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self.writers += [writer, up_writer]
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()


async def test_a_lost_connection_fails_promptly_and_the_engine_recovers(nats_url: str) -> None:
    proxy = Proxy(nats_url)
    url = await proxy.start()
    engine = JetStreamEngine(url, retention_s=RETENTION_S)
    await engine.start()
    topic = f"org.example.bus.t{uuid.uuid4().hex[:12]}.lost"
    try:
        await engine.ensure_stream(StreamSpec(topic=topic))
        await engine.publish(topic, ["before"])
        assert await take(engine, topic, "g", "m", limit=10, timeout_s=1) == ["before"]
        waiting = asyncio.create_task(take(engine, topic, "g", "m", limit=10, timeout_s=30))
        # A fixed wait on purpose: the take must be pending when the link is cut (no outside sign).
        await asyncio.sleep(0.3)
        await proxy.cut()
        with pytest.raises(EngineUnavailable):  # the lost link ends the 30 s take
            await asyncio.wait_for(waiting, 10)
        with pytest.raises(EngineUnavailable):
            await asyncio.wait_for(engine.publish(topic, ["while down"]), 10)
        await proxy.start(int(urlsplit(url).port or 0))  # the server is back on the same address
        await engine.publish(topic, ["after"])
        assert await take(engine, topic, "g", "m", limit=10, timeout_s=1) == ["after"]
    finally:
        await _drop_quietly(nats_url, topic)
        await engine.close()
        await proxy.cut()


async def _drop_quietly(url: str, topic: str) -> None:
    engine = JetStreamEngine(url, retention_s=RETENTION_S)
    await engine.start()
    await engine.drop_stream(topic)
    await engine.close()


async def test_stream_names_are_safe_and_distinct() -> None:
    names = ["org.example.bus.lab1.alarms", "org_example_bus_lab1_alarms", "a b>*/\\", "x" * 300]
    mapped = [stream_name(name) for name in names]
    assert len(set(mapped)) == len(names)
    for name in mapped:
        assert len(name) <= 64
        assert not set(name) & set(". *>/\\\t")
    assert stream_name(names[0]) == stream_name(names[0])  # deterministic: other processes agree


# -- read: by sequence number, without consuming (mirror agents) ----------------------------------


async def test_read_gives_sequence_numbers_and_moves_nothing(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await engine.publish(topic, numbered(5))
    first = await engine.read(topic, 0, 3, 1.0)
    assert [body for _seq, body in first] == numbered(3)
    seqs = [seq for seq, _body in first]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
    rest = await engine.read(topic, seqs[-1], 100, 1.0)
    assert [body for _seq, body in rest] == numbered(2, 3)
    assert all(seq > seqs[-1] for seq, _body in rest)
    assert await engine.read(topic, 0, 100, 0.2) == first + rest  # read again: the same, nothing moved
    assert await engine.group_positions(topic) == {}  # no group was made by reading
    assert await drain(engine, topic, "g") == numbered(5)


async def test_read_after_the_last_long_polls(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await engine.publish(topic, ["one"])
    ((last, _),) = await engine.read(topic, 0, 10, 1.0)
    started = time.monotonic()
    assert await engine.read(topic, last, 10, 0.5) == []
    assert time.monotonic() - started >= 0.4  # it waited for the timeout asked
    waiting = asyncio.create_task(engine.read(topic, last, 10, 20))
    # A fixed wait on purpose: the read must be pending when the publish comes (no outside sign).
    await asyncio.sleep(0.5)
    assert not waiting.done()
    await engine.publish(topic, ["two", "three"])
    received = await asyncio.wait_for(waiting, 10)
    assert [body for _seq, body in received] in (["two"], ["two", "three"])
    assert received[0][0] > last


async def test_read_resumes_on_a_new_engine(harness: Harness) -> None:
    first = await harness.engine()
    topic = await harness.topic(first)
    await first.publish(topic, numbered(10))
    batch = await first.read(topic, 0, 4, 1.0)
    await first.close()
    second = await harness.engine()
    rest = await second.read(topic, batch[-1][0], 100, 1.0)
    assert [body for _seq, body in batch + rest] == numbered(10)


async def test_read_of_a_topic_without_stream_is_unavailable(harness: Harness) -> None:
    engine = await harness.engine()
    with pytest.raises(EngineUnavailable):
        await engine.read(f"org.example.never.{uuid.uuid4().hex}", 0, 10, 0.2)


# -- claims: a fetch takes nothing from a consumer that left --------------------------------------


async def test_a_released_claim_goes_back_to_the_group_in_order(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await engine.publish(topic, numbered(5))
    claim = await engine.fetch(topic, "g", "m", limit=3, timeout_s=1)
    assert claim.messages == numbered(3)
    await claim.release()
    assert await drain(engine, topic, "g") == numbered(5)
    assert await engine.group_positions(topic) == {"g": 0}


async def test_an_abandoned_fetch_claims_nothing(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    await take(engine, topic, "g", "m", limit=1, timeout_s=0.1)  # the group exists
    abandoned = asyncio.Event()
    waiting = asyncio.create_task(engine.fetch(topic, "g", "m", limit=10, timeout_s=20, abandoned=abandoned))
    # A fixed wait on purpose: the fetch must be pending when it is abandoned (no outside sign).
    await asyncio.sleep(0.3)
    abandoned.set()
    assert (await asyncio.wait_for(waiting, 5)).messages == []  # ended by the abandon, not its 20 s
    # JetStream still holds the abandoned pull request: what it delivers there is given back.
    await engine.publish(topic, ["after the member left"])
    assert await take(engine, topic, "g", "m", limit=10, timeout_s=10) == ["after the member left"]


async def test_a_message_over_the_limit_stores_nothing(harness: Harness) -> None:
    engine = await harness.engine()
    topic = await harness.topic(engine)
    limit = engine.max_message_bytes
    with pytest.raises(MessageTooLarge):
        await engine.publish(topic, ["small", "é" * (limit // 2 + 1), "small"])  # 2 bytes each
    await engine.publish(topic, ["x" * limit])
    assert await drain(engine, topic, "g") == ["x" * limit]


async def test_a_limit_above_the_servers_max_payload_is_lowered_with_a_warning(
    nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    engine = JetStreamEngine(nats_url, retention_s=RETENTION_S, max_message_bytes=1 << 40)
    await engine.start()
    try:
        assert engine.max_message_bytes < 1 << 40  # the server's max_payload (1 MiB by default)
        assert "more than the NATS server accepts" in caplog.text
    finally:
        await engine.close()


# -- the embedded engine's claims outlive a router that died answering -------------------------


@pytest.fixture
def embedded_on_one_database(request: pytest.FixtureRequest) -> Callable[..., Engine]:
    """Embedded engines over this test's database, each named as an instance of its own."""
    _embedded_factory(request)  # migrates, or skips while the engine is unwritten
    database = database_for(request.getfixturevalue("settings"))
    embedded_engine = EmbeddedEngine

    def make(instance: str, claim_lease_s: float = 30.0) -> Engine:
        return cast(
            Engine,
            embedded_engine(
                database, retention_s=RETENTION_S, instance=instance, claim_lease_s=claim_lease_s
            ),
        )

    return make


async def background_pass(engine: Engine, name: str) -> None:
    """One pass of the engine's periodic work ``name``, as the kernel's job runner runs it."""
    (work,) = [periodic.work for periodic in engine.background() if periodic.name == name]
    await anyio.to_thread.run_sync(work)


async def dies_answering(engine: Engine, topic: str, group: str, limit: int) -> list[str]:
    """A fetch whose router is killed before the answer is out: the claim is never settled."""
    claim = await engine.fetch(topic, group, "m1", limit=limit, timeout_s=0)
    await engine.close()  # stops its tasks; nothing settles the claim, as after a SIGKILL
    return claim.messages


async def killed_then_restarted(make: Callable[..., Engine]) -> tuple[Engine, str]:
    """A run of "router-1" killed while answering 2 of a topic's 3 messages, and its next run
    (started); the topic."""
    first = make("router-1")
    await first.start()
    topic = f"org.example.bus.t{uuid.uuid4().hex[:12]}.crash"
    await first.ensure_stream(StreamSpec(topic=topic))
    await first.publish(topic, numbered(3))
    assert await dies_answering(first, topic, "g", limit=2) == numbered(2)
    restarted = make("router-1")
    await restarted.start()
    return restarted, topic


async def test_a_claim_made_in_the_millisecond_of_the_restart_is_given_back_too(
    embedded_on_one_database: Callable[..., Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The killed run's claim and the new run's start in one millisecond (a fast machine): the
    # claim once failed to come back (its lease ended exactly when the earlier run's would).
    frozen = int(time.time() * 1000)
    monkeypatch.setattr(f"{EMBEDDED_MODULE}.now_ms", lambda: frozen)
    restarted, topic = await killed_then_restarted(embedded_on_one_database)
    monkeypatch.undo()
    try:
        assert await drain(restarted, topic, "g") == numbered(3)
    finally:
        await restarted.drop_stream(topic)
        await restarted.close()


async def test_claims_a_killed_router_left_are_given_back_when_it_restarts(
    embedded_on_one_database: Callable[..., Engine],
) -> None:
    restarted, topic = await killed_then_restarted(embedded_on_one_database)
    try:
        assert await drain(restarted, topic, "g") == numbered(3)
        assert await drain(restarted, topic, "g") == []  # given back once
    finally:
        await restarted.drop_stream(topic)
        await restarted.close()


async def test_claims_of_a_router_that_never_returns_are_given_back_after_their_lease(
    embedded_on_one_database: Callable[..., Engine],
) -> None:
    dead = embedded_on_one_database("router-1", claim_lease_s=0.5)
    await dead.start()
    topic = f"org.example.bus.t{uuid.uuid4().hex[:12]}.crash"
    await dead.ensure_stream(StreamSpec(topic=topic))
    await dead.publish(topic, numbered(3))
    assert await dies_answering(dead, topic, "g", limit=2) == numbered(2)

    other = embedded_on_one_database("router-2", claim_lease_s=0.5)
    await other.start()
    try:
        assert await drain(other, topic, "g") == numbered(1, start=2)  # within the lease: not yet
        # A fixed wait on purpose: time passing is the point (a lease).
        await asyncio.sleep(1.5)  # the lease passes; the reaper (the router-claims job) gives it back
        await background_pass(other, "router-claims")
        # The group's position moves back before the first given-back message: at least once.
        assert await drain(other, topic, "g") == numbered(3)
    finally:
        await other.drop_stream(topic)
        await other.close()


async def test_answered_and_released_claims_are_not_given_back_again(
    embedded_on_one_database: Callable[..., Engine],
) -> None:
    engine = embedded_on_one_database("router-1", claim_lease_s=0.3)
    await engine.start()
    topic = f"org.example.bus.t{uuid.uuid4().hex[:12]}.settled"
    try:
        await engine.ensure_stream(StreamSpec(topic=topic))
        await engine.publish(topic, numbered(2))
        released = await engine.fetch(topic, "g", "m1", limit=1, timeout_s=0)
        await released.release()
        assert await drain(engine, topic, "g") == numbered(2)  # the answered claims are committed
        # A fixed wait on purpose: time passing is the point (every lease).
        await asyncio.sleep(1.0)  # past every lease
        await background_pass(engine, "router-claims")
        assert await drain(engine, topic, "g") == []
    finally:
        await engine.drop_stream(topic)
        await engine.close()
