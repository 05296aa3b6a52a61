"""A plain-HTTP endpoint for REST sources: it records every request and answers JSON, after a
gate the test opens when it wants runs held at the endpoint."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ...support.waiting import wait_until


class HttpStub:
    """``http://127.0.0.1:<port>``: GET answers ``answer`` as JSON (once ``open()`` was called,
    when the stub was started ``held``); ``paths`` lists the raw request targets, in order."""

    def __init__(self, answer: Any = None, held: bool = False) -> None:
        self.answer = {"value": "ok"} if answer is None else answer
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self._gate = threading.Event()
        if not held:
            self._gate.set()
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> HttpStub:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._gate.set()
        self.server.shutdown()
        self.server.server_close()

    def open(self) -> None:
        self._gate.set()

    @property
    def arrived(self) -> int:
        with self._lock:
            return len(self.paths)

    def wait_for(self, count: int, timeout: float = 30) -> None:
        wait_until(lambda: self.arrived >= count, timeout, what=f"{count} requests at the stub")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with stub._lock:
                    stub.paths.append(self.path)
                    stub.headers.append({name.lower(): value for name, value in self.headers.items()})
                stub._gate.wait(timeout=120)
                body = json.dumps(stub.answer).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the caller went away while the gate was closed (its run is over)

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler
