"""The message-router API of a cluster, called over HTTP as any outside client would (docs/router.md).

Every call goes to a cluster's base URL (``{topicProtocol}://{fqdn}:{topicPort}``: only an
administrator registers clusters) with the bus's own credential (``svc.bus``, or
NETPLATFORM_BUS_ROUTER_USER and _PASSWORD); HTTPS routers' certificates are verified. The bus
controller only needs to know whether a call took effect: any 2xx does (and 409 for a topic
create: it exists already); anything else, including no answer at all, raises
:class:`RouterCallFailed` with a reason fit for ``statusReason``. The reads (a router's topics,
one topic's ACLs, its mirror settings and agents) are what the background reconcile compares
with what the controller provisioned.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

import httpx

from ..answers import answer_reason

GRANT_KINDS = ("producers", "consumers")
ACL_OF_KIND = {"producers": "writerAcl", "consumers": "readerAcl"}
MIRROR_AGENTS_PATH = "/internal/mirror-agents"
MIRROR_SETTINGS_PATH = "/internal/mirror-settings"


class RouterCallFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RouterClient:
    """Thread-safe (one pooled httpx client); create once per app and :meth:`close` at shutdown."""

    def __init__(self, user: str, password: str, timeout_s: float, tls: ssl.SSLContext | None = None) -> None:
        self._http = httpx.Client(timeout=timeout_s, auth=(user, password), verify=tls or True)

    def close(self) -> None:
        self._http.close()

    def create_topic(self, base_url: str, body: dict[str, Any]) -> None:
        """Create the topic; one that exists already (409) counts as created."""
        self._call("POST", base_url, "/topics/create", body, also_fine=409)

    def grant(self, base_url: str, topic: str, kind: str, identity: str) -> None:
        """``kind`` is ``producers`` (publish) or ``consumers`` (fetch); ``identity`` an identity's
        name, or ``role:<name>`` (the router's wire form of a role)."""
        self._call("PUT", base_url, _grant_path(topic, kind, identity))

    def revoke(self, base_url: str, topic: str, kind: str, identity: str) -> None:
        """Revoke; a topic the router does not know (404) holds no grant."""
        self._call("DELETE", base_url, _grant_path(topic, kind, identity), also_fine=404)

    def publish(self, base_url: str, topic: str, messages: list[dict[str, Any]]) -> None:
        self._call("POST", base_url, f"/events/{quote(topic, safe='')}", messages)

    def tell_mirror_settings(self, base_url: str, admin_topic: str, sources: Iterable[str]) -> dict[str, Any]:
        """Tell the router its bridge-admin topic (which it makes, and refuses, 409, when a topic of
        that name exists that it did not make) and the registered clusters' routers, the only
        sources its mirror agents may connect to; no credential (docs/router.md, "The mirror
        settings"). The router's answer: what it uses (its environment may override the topic)."""
        body = {"adminTopic": admin_topic, "sources": sorted(set(sources))}
        return self._json(self._call("PUT", base_url, MIRROR_SETTINGS_PATH, body), "mirror settings")

    def topic_names(self, base_url: str) -> set[str]:
        """Every topic the router has (``GET /topics``)."""
        listing = self._json(self._call("GET", base_url, "/topics"), "list of topics")
        names = listing.get("topics")
        if not isinstance(names, list):
            raise RouterCallFailed(f"GET {base_url}/topics answered no list of topics")
        return {name for name in names if isinstance(name, str)}

    def granted(self, base_url: str, topic: str) -> set[tuple[str, str]] | None:
        """The topic's grants as (kind, identity or ``role:<name>``), or None when the router lacks
        the topic."""
        response = self._call("GET", base_url, f"/topics/{quote(topic, safe='')}", also_fine=404)
        if response.status_code == 404:
            return None
        body = self._json(response, "topic")
        found: set[tuple[str, str]] = set()
        for kind, acl_name in ACL_OF_KIND.items():
            acl = body.get(acl_name)
            users = acl.get("users") if isinstance(acl, dict) else None
            found.update((kind, user) for user in users or [] if isinstance(user, str))
        return found

    def health(self, base_url: str) -> None:
        """Whether the router serves (``GET /health``): a router that is down, or at a site whose
        replica of the central directory is older than its bound (it then takes no decision),
        raises with the reason its health names."""
        url = base_url.rstrip("/") + "/health"
        try:
            response = self._http.get(url)
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as error:
            raise RouterCallFailed(f"message router unreachable at {url}: {error}") from error
        if 200 <= response.status_code < 300:
            return
        try:
            body = response.json()
        except ValueError:
            body = None
        reason = body.get("reason") if isinstance(body, dict) else None
        raise RouterCallFailed(
            f"the message router at {base_url} is not serving (GET /health answered "
            f"{response.status_code}): {reason or answer_reason(response)}"
        )

    def access(self, base_url: str, topic: str, identity: str, action: str) -> str | None:
        """None when ``identity`` may ``action`` (``pub``: publish, ``sub``: fetch) the topic at the
        router, as a publish or fetch there would be decided; else the router's reason."""
        path = f"/internal/topics/{quote(topic, safe='')}/access"
        url = base_url.rstrip("/") + path
        try:
            response = self._http.get(url, params={"identity": identity, "action": action})
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as error:
            raise RouterCallFailed(f"message router unreachable at {url}: {error}") from error
        if response.status_code != 200:
            raise RouterCallFailed(f"GET {url} answered {response.status_code}: {answer_reason(response)}")
        body = self._json(response, "access decision")
        if body.get("allowed") is True:
            return None
        return str(body.get("reason") or "refused")

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

    @staticmethod
    def _json(response: httpx.Response, what: str) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise RouterCallFailed(f"{response.request.method} {response.url} answered no {what}")
        return body

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
