"""What the replay layer keeps: 200 answers of marked GET routes, within its byte bounds.

A small FastAPI app served by uvicorn over real HTTP, its generation in the test database.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse
from sqlalchemy import insert, update

from netplatform.settings import Settings
from netplatform.store.db import Database, database_for, new_metadata
from netplatform.store.generations import Generation, generations_table
from netplatform.web.replay import ReplayCounts, ReplayShortcut, replayable

from ..support.servers import LiveServer

METADATA = new_metadata()
GENERATIONS = generations_table("test_replay_generations", METADATA)


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = database_for(settings)
    METADATA.create_all(database.engine)
    with database.write() as session:
        session.execute(insert(GENERATIONS).values(scope="s", generation=0))
    yield database
    METADATA.drop_all(database.engine)


class HeldGeneration(Generation):
    """The test's generation, whose next read can be held (``hold_next``) after it read the
    database, until the test releases it: another request then runs while one is in between."""

    def __init__(self, db: Database) -> None:
        super().__init__(db, GENERATIONS, "s")
        self.hold_next = False
        self.holding = threading.Event()
        self.release = threading.Event()

    async def current(self) -> int:
        value = await super().current()
        if self.hold_next:
            self.hold_next = False
            self.holding.set()
            await asyncio.to_thread(self.release.wait, 30)
        return value


def served(
    db: Database,
    counts: ReplayCounts,
    *,
    max_bytes: int,
    max_answer_bytes: int,
    generation: Generation | None = None,
) -> FastAPI:
    generation = generation or Generation(db, GENERATIONS, "s")
    marked = replayable(lambda _request: generation)
    app = FastAPI()
    computed: list[str] = []
    app.state.computed = computed

    @app.get("/text/{size}", dependencies=[marked])
    def text(size: int, request: Request) -> PlainTextResponse:
        computed.append(request.url.path)
        return PlainTextResponse("x" * size, status_code=200 if size else 404)

    @app.get("/unmarked")
    def unmarked() -> PlainTextResponse:
        computed.append("/unmarked")
        return PlainTextResponse("u")

    app.add_middleware(ReplayShortcut, counts=counts, max_bytes=max_bytes, max_answer_bytes=max_answer_bytes)
    return app


@contextmanager
def live(app: FastAPI) -> Iterator[httpx.Client]:
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def bump(db: Database) -> None:
    with db.write() as session:
        session.execute(update(GENERATIONS).values(generation=GENERATIONS.c.generation + 1))


def test_only_marked_200_answers_within_the_bounds_are_replayed(db: Database) -> None:
    counts = ReplayCounts()
    app = served(db, counts, max_bytes=4096, max_answer_bytes=1000)
    with live(app) as client:
        paths = ["/text/10", "/unmarked", "/text/0", "/text/2000"]
        for path in paths:
            client.get(path)
            client.get(path)
        # Replayed: the second /text/10 only. Not kept: unmarked, a 404, an answer over 1000 bytes.
        assert app.state.computed == ["/text/10", *(path for path in paths[1:] for _ in range(2))]
        assert counts.hits == 1

        bump(db)
        assert client.get("/text/10").text == "x" * 10
        assert app.state.computed[-1] == "/text/10"
        assert counts.stale == 1


def test_the_least_recently_replayed_answer_goes_first_when_the_bytes_run_out(db: Database) -> None:
    counts = ReplayCounts()
    app = served(db, counts, max_bytes=1500, max_answer_bytes=1000)
    with live(app) as client:
        for path in ("/text/600", "/text/601", "/text/600", "/text/602"):
            client.get(path)
        # /text/602 pushed out the least recently used: 601, since 600 was just replayed.
        assert counts.kept_bytes <= 1500
        assert counts.hits == 1
        client.get("/text/600")
        assert counts.hits == 2
        client.get("/text/601")
        assert app.state.computed == ["/text/600", "/text/601", "/text/602", "/text/601"]


@pytest.mark.parametrize("bump_it", [False, True], ids=["pushed-out", "stale-then-kept-anew"])
def test_an_answer_that_stood_is_replayed_though_another_request_changed_what_is_kept_meanwhile(
    db: Database, bump_it: bool
) -> None:
    """While one request checks its kept answer against the database, others push that answer
    out (the bytes ran out) or find it stale and keep a newer one: the first still gets the
    answer that stood when it asked (200, whole), and the newer answer stays kept."""
    counts = ReplayCounts()
    generation = HeldGeneration(db)
    app = served(db, counts, max_bytes=700, max_answer_bytes=1000, generation=generation)
    with live(app) as client, ThreadPoolExecutor(1) as pool:
        client.get("/text/600")
        generation.hold_next = True
        held = pool.submit(client.get, "/text/600")
        assert generation.holding.wait(30)
        if bump_it:
            bump(db)
            assert client.get("/text/600").status_code == 200  # stale: computed and kept anew
        else:
            assert client.get("/text/601").status_code == 200  # pushes /text/600 out
        kept = dict(counts.entries)
        generation.release.set()
        answer = held.result(30)
        assert (answer.status_code, answer.text) == (200, "x" * 600)
        assert counts.entries == kept
        assert counts.kept_bytes == sum(entry.size for entry in kept.values())
