"""The message-router API of a cluster, called over HTTP as any outside client would (docs/router.md).

Every call goes to a cluster's base URL (``{topicProtocol}://{fqdn}:{topicPort}``) with the
configured Basic credentials. The bus controller only needs to know whether a call took effect:
any 2xx does (and 409 for a topic create: it exists already); anything else, including no
answer at all, raises :class:`RouterCallFailed` with a reason fit for ``statusReason``. One call
reads an answer: the list of the mirror agents a router runs, which says whether the agent
messages the controller sent took effect.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

GRANT_KINDS = ("producers", "consumers")
MIRROR_AGENTS_PATH = "/internal/mirror-agents"


class RouterCallFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RouterClient:
    """Thread-safe (one pooled httpx client); create once per app and :meth:`close` at shutdown."""

    def __init__(self, user: str, password: str, timeout_s: float) -> None:
        self._http = httpx.Client(timeout=timeout_s, auth=(user, password))

    def close(self) -> None:
        self._http.close()

    def create_topic(self, base_url: str, body: dict[str, Any]) -> None:
        """Create the topic; one that exists already (409) counts as created."""
        self._call("POST", base_url, "/topics/create", body, also_fine=409)

    def grant(self, base_url: str, topic: str, kind: str, identity: str) -> None:
        """``kind`` is ``producers`` (publish) or ``consumers`` (fetch)."""
        self._call("PUT", base_url, _grant_path(topic, kind, identity))

    def revoke(self, base_url: str, topic: str, kind: str, identity: str) -> None:
        """Revoke; a topic the router does not know (404) holds no grant."""
        self._call("DELETE", base_url, _grant_path(topic, kind, identity), also_fine=404)

    def publish(self, base_url: str, topic: str, messages: list[dict[str, Any]]) -> None:
        self._call("POST", base_url, f"/events/{quote(topic, safe='')}", messages)

    def mirror_agents(self, base_url: str) -> dict[str, Any]:
        """The router's list of the mirror agents it runs (``GET /internal/mirror-agents``)."""
        response = self._call("GET", base_url, MIRROR_AGENTS_PATH)
        try:
            listing = response.json()
        except ValueError:
            listing = None
        if not isinstance(listing, dict) or not isinstance(listing.get("agents"), list):
            raise RouterCallFailed(f"GET {response.url} answered no list of mirror agents")
        return listing

    def _call(
        self, method: str, base_url: str, path: str, body: Any = None, *, also_fine: int | None = None
    ) -> httpx.Response:
        url = base_url.rstrip("/") + path
        try:
            response = self._http.request(method, url, json=body)
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as error:
            raise RouterCallFailed(f"message router unreachable at {url}: {error}") from error
        status = response.status_code
        if 200 <= status < 300 or status == also_fine:
            return response
        raise RouterCallFailed(f"{method} {url} answered {status}: {answer_reason(response)}")


def _grant_path(topic: str, kind: str, identity: str) -> str:
    if kind not in GRANT_KINDS:
        raise ValueError(f"unknown grant kind {kind}")
    return f"/topics/{quote(topic, safe='')}/{kind}/{quote(identity, safe='')}"


def answer_reason(response: httpx.Response) -> str:
    """The called service's error message (its JSON body's ``message``: the router's and the
    authz service's bodies both carry one), else the body's text."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return response.text.strip()[:500] or f"HTTP {response.status_code}"
