"""An HTTPS endpoint that records what it receives: the subscriber in delivery tests.

Every request is kept (method, path, headers, body). What it answers is up to the test: a
fixed status, a scripted sequence per path, or any function of the request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .servers import LiveServer
from .tls import TlsFiles


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    received_at: float = field(default_factory=time.time)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


Reply = tuple[int, dict[str, str]]
Responder = Callable[[RecordedRequest], Reply]


class Receiver:
    def __init__(self, tls: TlsFiles, responder: Responder | None = None) -> None:
        self.requests: list[RecordedRequest] = []
        self.responder: Responder = responder or (lambda request: (204, {}))
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.server = LiveServer(self._app, ssl=tls.uvicorn_ssl)

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> Receiver:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def answer_with(self, responder: Responder) -> None:
        self.responder = responder

    def answer_sequence(self, statuses: list[int], then: int = 204) -> None:
        """Answer the given statuses in order, then ``then`` for ever."""
        remaining = list(statuses)

        def responder(request: RecordedRequest) -> Reply:
            return (remaining.pop(0) if remaining else then), {}

        self.responder = responder

    def wait_for(
        self, count: int, timeout: float = 30, predicate: Callable[[RecordedRequest], bool] | None = None
    ) -> list[RecordedRequest]:
        """Block until ``count`` matching requests have arrived; return the matching ones."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                matching = [r for r in self.requests if predicate is None or predicate(r)]
                if len(matching) >= count:
                    return matching
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"expected {count} requests, got {len(matching)}")
                self._arrived.wait(remaining)

    async def _app(
        self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]
    ) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        raw_path = scope.get("raw_path") or scope["path"].encode()
        request = RecordedRequest(scope["method"], raw_path.decode("latin-1"), headers, b"".join(chunks))
        status, reply_headers = self.responder(request)
        with self._arrived:
            self.requests.append(request)
            self._arrived.notify_all()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(k.encode(), v.encode()) for k, v in reply_headers.items()],
            }
        )
        await send({"type": "http.response.body", "body": b""})
