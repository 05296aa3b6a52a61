"""Calls of the message-router tests: error bodies, publishing, fetching a group until it has
nothing more."""

from __future__ import annotations

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
