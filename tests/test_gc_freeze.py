"""``serve`` freezes the heap once every server has started (server.freeze_heap)."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from netplatform import server
from netplatform.settings import Settings

from .support.databases import migrate


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """The test process's collector as it was: the test freezes it for real."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored_gc")
def test_serve_freezes_the_heap_once_its_servers_have_started(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    migrate(settings)
    gc.unfreeze()
    seen: list[tuple[int, tuple[int, int, int]]] = []

    async def scenario() -> None:
        frozen = asyncio.Event()
        real = server.freeze_heap

        def freeze_and_tell() -> None:
            real()
            seen.append((gc.get_freeze_count(), gc.get_threshold()))
            frozen.set()

        monkeypatch.setattr(server, "freeze_heap", freeze_and_tell)
        sockets = {"configtree": server.bind_socket("127.0.0.1", 0)}
        serving = asyncio.create_task(
            server.serve_on(settings, ["configtree"], prepare=False, sockets=sockets)
        )
        # A generous bound, not a timing assertion: without a freeze the test fails instead of hanging.
        waiting = asyncio.create_task(frozen.wait())
        await asyncio.wait({serving, waiting}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        os.kill(os.getpid(), signal.SIGTERM)  # serve_on's own handler: a clean stop
        await serving

    asyncio.run(scenario())
    assert len(seen) == 1
    count, thresholds = seen[0]
    assert count > 0
    assert thresholds == server.GC_THRESHOLDS


def test_the_freeze_waits_for_every_server(monkeypatch: pytest.MonkeyPatch) -> None:
    # A server whose lifespan failed never becomes ready: the process stops unfrozen.
    calls: list[None] = []
    monkeypatch.setattr(server, "freeze_heap", lambda: calls.append(None))

    async def scenario() -> None:
        ready, failed = (server.EmbeddedServer(_config()) for _ in range(2))
        ready.ready.set()
        waiting = asyncio.create_task(server.freeze_when_started([ready, failed]))
        await asyncio.sleep(0)  # let it wait on both
        assert not waiting.done()
        failed.ready.set()
        await waiting

    asyncio.run(scenario())
    assert calls == [None]


def _config() -> uvicorn.Config:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        return None

    return uvicorn.Config(app)
