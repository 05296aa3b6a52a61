"""What the replay layer keeps: 200 answers of marked GET routes, within its byte bounds.

A small FastAPI app served by uvicorn over real HTTP, its generation in the test database.
"""

from __future__ import annotations

from collections.abc import Iterator
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


def served(db: Database, counts: ReplayCounts, *, max_bytes: int, max_answer_bytes: int) -> FastAPI:
    generation = Generation(db, GENERATIONS, "s")
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
