"""A mirror agent's view of its source router: the internal read route, over HTTP.

The agent reads with the router's mirror credential: ``svc.mirror``'s, derived from the platform
key (access/platform.py), or NETPLATFORM_ROUTER_MIRROR_USER and _PASSWORD where the source does
not share the key; the source's read route needs ``platform.router.internal|mirror|call``. It
never presents another user's password, and only to a source the bus controller registered
(:func:`source_key` names a source as the allowed list does; mirror_supervisor.py checks before
any connection). HTTPS sources' certificates are verified (NETPLATFORM_ROUTER_MIRROR_CA_BUNDLE
adds the deployment's own CA). The source answers messages with their sequence numbers and moves
nothing (routes/mirror.py).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

READ_PATH = "/internal/mirror/"
HEAD_HEADER = "X-Mirror-Head"
"""The source's last sequence of the topic when it answered (routes/mirror.py): the lag's base."""
ROUTER_ID_HEADER = "X-Router-Id"
"""The answering router's id (mirror_settings.py): an agent whose source is its own router refuses
to copy, since it would copy its own copies for ever."""
HTTP_SLACK_S = 15.0  # beyond the long poll, for the source to answer a full batch
CONNECT_S = 5.0  # a source that does not accept within this is reported unreachable


class SourceUnavailable(Exception):
    """The source router could not be reached, refused a read, or answered something that is not
    a read's answer; the message says which, for the agent's ``lastError``."""


@dataclass(frozen=True)
class SourceRead:
    messages: list[tuple[int, str]]  # (sequence, message), oldest first
    head: int | None  # the source's last sequence of the topic; None: the source did not say
    router_id: str | None = None  # the source router's id; None: the source did not say


_DEFAULT_PORTS = {"http": 80, "https": 443}


def source_key(url: str) -> str:
    """A router URL as sources are compared: ``scheme://host:port[/path]``, scheme and host in lower
    case, the port explicit, no trailing ``/`` (the bus controller's ``{protocol}://{fqdn}:{port}``
    and the create message's ``sourceUrl`` name one source however they are written)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is no number: never equal to a registered source
        return url.strip()
    host = (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port}{parts.path.rstrip('/')}"


class SourceRouter:
    def __init__(
        self, base_url: str, credentials: tuple[str, str], tls: ssl.SSLContext | None = None
    ) -> None:
        self.base_url = base_url
        self.credentials = credentials
        timeout = httpx.Timeout(HTTP_SLACK_S, connect=CONNECT_S)
        self._client = httpx.AsyncClient(
            base_url=base_url, auth=credentials, timeout=timeout, verify=tls if tls is not None else True
        )

    async def read(self, topic: str, after: int, *, limit: int, timeout_s: float) -> SourceRead:
        """Messages after sequence ``after``, oldest first, and the source's head; every failure
        raises SourceUnavailable saying what went wrong."""
        params = {"after": after, "limit": limit, "timeout": int(timeout_s * 1000)}
        try:
            response = await self._client.get(
                READ_PATH + quote(topic, safe=""),
                params=params,
                timeout=httpx.Timeout(timeout_s + HTTP_SLACK_S, connect=CONNECT_S),
            )
        except httpx.TransportError as error:
            raise SourceUnavailable(f"source {self.base_url} unreachable: {_describe(error)}") from error
        if response.status_code != 200:
            raise SourceUnavailable(self._refusal(topic, response))
        try:
            body = response.json()
        except ValueError:
            raise SourceUnavailable(
                f"the source {self.base_url} answered something that is not JSON"
            ) from None
        return SourceRead(_messages(body, after), _head(response), response.headers.get(ROUTER_ID_HEADER))

    def _refusal(self, topic: str, response: httpx.Response) -> str:
        status = response.status_code
        if status == 404:
            return f"topic {topic} does not exist on the source (404)"
        who = self.credentials[0]
        if status == 401:
            return f"the source answered 401: it does not accept {who}'s mirror credential"
        if status == 403:
            return f"the source answered 403: {who} lacks platform.router.internal|mirror|call there"
        return f"the source answered {status}: {response.text[:300]}"

    async def close(self) -> None:
        await self._client.aclose()


def _describe(error: httpx.TransportError) -> str:
    return str(error) or type(error).__name__


def _head(response: httpx.Response) -> int | None:
    value = response.headers.get(HEAD_HEADER, "")
    return int(value) if value.isdigit() else None


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
