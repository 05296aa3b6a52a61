"""The access log's batching writer (netplatform.logs): every line arrives, stop writes out the rest."""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi import APIRouter, Request
from starlette.responses import JSONResponse

from netplatform.logs import configure_logging, stop_logging
from netplatform.settings import Settings
from netplatform.web.app import build_app
from netplatform.web.errors import ApiError
from netplatform.web.middleware.kernel import AccessLog
from netplatform.web.permissions import per_object
from netplatform.web.requestid import REQUEST_ID_HEADER
from netplatform.web.service import ServiceSpec

from .support.databases import migrate
from .support.servers import LiveServer, ServeProcess, free_port, http_client

router = APIRouter()


@router.get("/whoami", openapi_extra=per_object("any authenticated identity"))
async def whoami(request: Request) -> dict[str, object]:
    return {"user": request.scope["state"]["user"]}


def render(request: Request, error: ApiError) -> JSONResponse:
    return JSONResponse({"text": error.message}, status_code=error.status, headers=error.headers)


SPEC = ServiceSpec(name="log-test", title="log test", version="0.0.1", render_error=render)


@pytest.fixture(autouse=True)
def restored_logging() -> Iterator[None]:
    """The process's logging as it was: these tests install the writer on the root logger."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    stop_logging()
    root.handlers[:] = handlers
    root.setLevel(level)


def test_every_request_of_a_live_service_has_its_json_line(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(access_log=True, log_format="json")
    migrate(settings)
    stream = io.StringIO()
    configure_logging(settings, stream)
    with LiveServer(build_app(SPEC, settings, [router])) as server, http_client(server.url) as client:
        for n in range(200):
            assert client.get("/whoami", headers={REQUEST_ID_HEADER: f"req-{n}"}).status_code == 200
    stop_logging()
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    access = [line for line in lines if line["logger"] == "netplatform.access"]
    assert [line["request_id"] for line in access] == [f"req-{n}" for n in range(200)]
    first = access[0]
    # Formatted on the writer's thread from the arguments the request left: the same message.
    assert first["message"].startswith("GET /whoami admin 200 ")
    assert (first["service"], first["path"], first["status"]) == ("log-test", "/whoami", 200)


def test_stop_writes_out_every_line_still_queued(settings: Settings) -> None:
    stream = io.StringIO()
    configure_logging(settings, stream)
    access = AccessLog(logging.getLogger("netplatform.access"))
    for n in range(3000):
        access.write("%s %s %d", ("GET", f"/item/{n}", 200), {"request_id": str(n)})
    stop_logging()  # well within the writer's gathering pause: most lines are still queued
    assert stream.getvalue().splitlines()[-1].endswith("netplatform.access: GET /item/2999 200")
    assert len(stream.getvalue().splitlines()) == 3000


class HeldStream(io.StringIO):
    """Its first write waits for ``release``, so lines logged meanwhile queue up."""

    def __init__(self) -> None:
        super().__init__()
        self.writing = threading.Event()
        self.release = threading.Event()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        self.writing.set()
        assert self.release.wait(60)
        return super().write(text)


def test_lines_queued_during_a_write_go_out_in_one_write(settings: Settings) -> None:
    stream = HeldStream()
    configure_logging(settings, stream)
    log = logging.getLogger("netplatform.access")
    log.info("first")
    assert stream.writing.wait(60)
    for n in range(500):
        log.info("queued %d", n)
    stream.release.set()
    stop_logging()
    assert len(stream.getvalue().splitlines()) == 501
    assert stream.writes == 2


def test_serve_writes_every_access_line_before_it_exits(tmp_path: Path, database_url: str | None) -> None:
    port = free_port()
    env = {
        "NETPLATFORM_CONFIGTREE_PORT": str(port),
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_USERS": "admin:admin",
        "NETPLATFORM_ACCESS_LOG": "true",
        "NETPLATFORM_LOG_FORMAT": "json",
        **({"NETPLATFORM_DATABASE_URL": database_url} if database_url else {}),
    }
    process = ServeProcess(env, ["--only", "configtree"], tmp_path / "serve.log").start(wait_ports=[port])
    try:
        with http_client(f"http://127.0.0.1:{port}") as client:
            for n in range(300):
                client.get("/health", headers={REQUEST_ID_HEADER: f"last-{n}"})
    finally:
        # SIGTERM right after the last answer: its line is, at best, still queued.
        assert process.stop() == 0
    logged = [json.loads(line) for line in process.log().splitlines() if line.startswith("{")]
    ids = [line.get("request_id") for line in logged if line["logger"] == "netplatform.access"]
    assert ids == [f"last-{n}" for n in range(300)]
