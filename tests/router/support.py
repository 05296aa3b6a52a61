"""Helpers of the router tests: error bodies, fetching a group until it has nothing more, and a
server that records whatever reaches it."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

import httpx


def router_error(response: httpx.Response, status: int) -> dict[str, Any]:
    """The reference router's error body, checked for shape and status."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"status", "mrstatus", "message", "helpURL"}, body
    assert body["status"] == status
    assert isinstance(body["mrstatus"], int) and body["message"]
    return body


def drain(client: httpx.Client, topic: str, group: str, member: str = "m1", limit: int = 100) -> list[str]:
    """Everything the group has still to get, ``limit`` at a time."""
    received: list[str] = []
    while True:
        response = client.get(f"/events/{topic}/{group}/{member}", params={"timeout": 200, "limit": limit})
        assert response.status_code == 200, response.text
        batch = response.json()
        assert len(batch) <= limit
        if not batch:
            return received
        received += batch


def publish(client: httpx.Client, topic: str, messages: list[str]) -> None:
    """Publish ``messages`` (no newlines in them) as text lines: each comes back as it was."""
    body = "".join(f"{message}\n" for message in messages).encode()
    response = client.post(f"/events/{topic}", content=body, headers={"content-type": "text/plain"})
    assert response.status_code == 200, response.text
    assert response.json()["count"] == len(messages)


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
