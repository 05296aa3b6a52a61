"""Endpoints that record what reaches them.

``Receiver``: an HTTPS endpoint, the subscriber in delivery tests. Every request is kept
(method, path, headers, body). What it answers is up to the test: a fixed status, a scripted
sequence per path, or any function of the request.

``RecordingServer``: a plain socket server that keeps the head of each request and answers 401
(the router's tests of credentials sent to someone else's server).
"""

from __future__ import annotations

import contextlib
import socket
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


class RecordingServer:
    """A plain socket server "of someone's own": records the head of every request it gets and
    answers 401, so an HTTP client that reaches it fails without retrying at once."""

    ANSWER = b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.requests: list[bytes] = []
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stopped.is_set():
            try:
                connection, _address = self.sock.accept()
            except TimeoutError:
                continue
            with connection:
                self.requests.append(_request_head(connection))
                with contextlib.suppress(OSError):
                    connection.sendall(self.ANSWER)

    def headers(self) -> list[dict[str, str]]:
        """Each recorded request's headers, names lower-cased."""
        found = []
        for head in self.requests:
            lines = head.decode("latin-1").split("\r\n")[1:]
            pairs = (line.split(":", 1) for line in lines if ":" in line)
            found.append({name.strip().lower(): value.strip() for name, value in pairs})
        return found

    def __enter__(self) -> RecordingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)
        self.sock.close()


def _request_head(connection: socket.socket) -> bytes:
    """Whatever arrives up to the end of the headers (or for 2 s): enough to see the credential."""
    connection.settimeout(2)
    head = b""
    with contextlib.suppress(OSError):
        while b"\r\n\r\n" not in head:
            chunk = connection.recv(4096)
            if not chunk:
                break
            head += chunk
    return head
