"""A mirror agent's view of its source router: the internal read route, over HTTP.

The agent reads with the router's mirror credential (NETPLATFORM_ROUTER_MIRROR_USER and
_PASSWORD, an identity holding platform.node at the source), or, when none is configured, with
no credential at all: the source answers 401 and the agent keeps retrying. It never presents
another user's password, since whoever names a source learns what the agent sends it. The
source answers messages with their sequence numbers and moves nothing (routes/mirror.py).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

READ_PATH = "/internal/mirror/"
HTTP_SLACK_S = 15.0  # beyond the long poll, for the source to answer a full batch


class SourceUnavailable(Exception):
    """The source router refused a read or answered something that is not a read's answer."""


class SourceRouter:
    def __init__(self, base_url: str, credentials: tuple[str, str] | None) -> None:
        self.base_url = base_url
        self._client = httpx.AsyncClient(base_url=base_url, auth=credentials, timeout=HTTP_SLACK_S)

    async def read(self, topic: str, after: int, *, limit: int, timeout_s: float) -> list[tuple[int, str]]:
        """Messages after sequence ``after``, oldest first; transport failures raise httpx errors."""
        params = {"after": after, "limit": limit, "timeout": int(timeout_s * 1000)}
        response = await self._client.get(
            READ_PATH + quote(topic, safe=""), params=params, timeout=timeout_s + HTTP_SLACK_S
        )
        if response.status_code != 200:
            raise SourceUnavailable(f"{self.base_url} answered {response.status_code}: {response.text[:300]}")
        return _messages(response.json(), after)

    async def close(self) -> None:
        await self._client.aclose()


def _messages(body: Any, after: int) -> list[tuple[int, str]]:
    """The answer checked: ascending sequences after ``after``, each with a string message."""
    if not isinstance(body, list):
        raise SourceUnavailable("the source's answer is not a JSON array")
    read: list[tuple[int, str]] = []
    last = after
    for item in body:
        seq = item.get("seq") if isinstance(item, dict) else None
        message = item.get("message") if isinstance(item, dict) else None
        if not isinstance(seq, int) or isinstance(seq, bool) or seq <= last or not isinstance(message, str):
            raise SourceUnavailable(f"the source's answer holds an unexpected item: {str(item)[:200]}")
        read.append((seq, message))
        last = seq
    return read
