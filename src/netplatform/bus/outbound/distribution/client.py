"""The file-distribution service's provisioning API, called over HTTP as any outside client would.

Every call goes to the bus settings' ``drProvUrl`` (which only an administrator sets) with the
bus's own credential (``svc.bus``, or NETPLATFORM_BUS_DR_USER and _PASSWORD), the
reference's media types and the on-behalf-of header. Outcomes are sorted for the caller into
three: an answer (any 2xx), :class:`Rejected` (the service refused the input: 400, 404, 409,
413, 415; retrying the same thing cannot help) and :class:`Unreachable` (no usable answer:
connection failure, timeout, 5xx, 401, 403, a body that is not JSON; a later retry may work).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any

import httpx

FEED_MEDIA_TYPE = "application/vnd.bus-dr.feed"
SUBSCRIPTION_MEDIA_TYPE = "application/vnd.bus-dr.subscription"
ON_BEHALF_OF = "X-BUS-DR-ON-BEHALF-OF"

_REJECTING = frozenset({400, 404, 409, 413, 415})


class ProvisioningError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Rejected(ProvisioningError):
    """The distribution service refused the request's content (``status`` is its answer)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Unreachable(ProvisioningError):
    """The distribution service did not give a usable answer."""


@dataclass(frozen=True)
class Account:
    """Who the bus controller is to the distribution service."""

    user: str
    password: str
    subscriber: str


class DistributionClient:
    """Thread-safe (one pooled httpx client); create once per app and :meth:`close` at shutdown."""

    def __init__(self, account: Account, timeout_s: float, tls: ssl.SSLContext | None = None) -> None:
        self.account = account
        self._http = httpx.Client(
            timeout=timeout_s, auth=(account.user, account.password), verify=tls or True
        )

    def close(self) -> None:
        self._http.close()

    # --- feeds ---------------------------------------------------------------------------------

    def create_feed(self, base_url: str, body: dict[str, Any], owner: str) -> dict[str, Any]:
        return self._call("POST", base_url, "/", FEED_MEDIA_TYPE, owner, body)

    def update_feed(self, base_url: str, feed_id: str, body: dict[str, Any], owner: str) -> dict[str, Any]:
        return self._call("PUT", base_url, f"/feed/{feed_id}", FEED_MEDIA_TYPE, owner, body)

    def delete_feed(self, base_url: str, feed_id: str, owner: str) -> None:
        """Delete; a feed the service does not know (404) is already gone."""
        self._delete(base_url, f"/feed/{feed_id}", FEED_MEDIA_TYPE, owner)

    # --- subscriptions -------------------------------------------------------------------------

    def create_subscription(self, base_url: str, feed_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._call(
            "POST", base_url, f"/subscribe/{feed_id}", SUBSCRIPTION_MEDIA_TYPE, self.account.subscriber, body
        )

    def update_subscription(self, base_url: str, sub_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._call(
            "PUT", base_url, f"/subs/{sub_id}", SUBSCRIPTION_MEDIA_TYPE, self.account.subscriber, body
        )

    def delete_subscription(self, base_url: str, sub_id: str) -> None:
        self._delete(base_url, f"/subs/{sub_id}", SUBSCRIPTION_MEDIA_TYPE, self.account.subscriber)

    # --- sites: nodes and routes (the internal API, spec 1.3) ----------------------------------

    def nodes(self, base_url: str) -> list[dict[str, Any]]:
        """Every node that ever registered, with ``fqdn``, ``site``, ``url`` and ``up``."""
        return _objects(self._send("GET", base_url, "/internal/nodes", None))

    def ingress_routes(self, base_url: str, feed_id: str) -> list[dict[str, Any]]:
        return _objects(self._send("GET", base_url, f"/internal/route/ingress?feedId={feed_id}", None))

    def set_ingress(self, base_url: str, feed_id: str, publisher: str, sites: list[str]) -> None:
        self._send("PUT", base_url, f"/internal/route/ingress/{feed_id}/{publisher}", {"sites": sites})

    def delete_ingress(self, base_url: str, feed_id: str, publisher: str) -> None:
        self._delete_internal(base_url, f"/internal/route/ingress/{feed_id}/{publisher}")

    def set_egress(self, base_url: str, sub_id: str, node: str) -> None:
        self._send("PUT", base_url, f"/internal/route/egress/{sub_id}", {"node": node})

    def delete_egress(self, base_url: str, sub_id: str) -> None:
        self._delete_internal(base_url, f"/internal/route/egress/{sub_id}")

    # --- machinery -----------------------------------------------------------------------------

    def _delete(self, base_url: str, path: str, media_type: str, behalf: str) -> None:
        try:
            self._call("DELETE", base_url, path, media_type, behalf, None)
        except Rejected as rejected:
            if rejected.status != 404:
                raise

    def _delete_internal(self, base_url: str, path: str) -> None:
        try:
            self._send("DELETE", base_url, path, None)
        except Rejected as rejected:
            if rejected.status != 404:
                raise

    def _send(self, method: str, base_url: str, path: str, body: dict[str, Any] | None) -> Any:
        """An internal-API call: platform credentials and JSON, no provisioning media type."""
        url = _url(base_url, path)
        try:
            response = self._http.request(method, url, json=body, headers={"Accept": "application/json"})
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as error:
            raise Unreachable(f"distribution service unreachable at {url}: {error}") from error
        return _answer(method, url, response)

    def _call(
        self,
        method: str,
        base_url: str,
        path: str,
        media_type: str,
        behalf: str,
        body: dict[str, Any] | None,
    ) -> dict[str, Any]:
        url = _url(base_url, path)
        headers = {ON_BEHALF_OF: behalf, "Content-Type": media_type, "Accept": "application/json"}
        try:
            response = self._http.request(method, url, json=body, headers=headers)
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as error:
            raise Unreachable(f"distribution service unreachable at {url}: {error}") from error
        return _outcome(method, url, response)


def _url(base_url: str, path: str) -> str:
    if not base_url:
        raise Unreachable("drProvUrl is not set in the bus settings")
    return base_url.rstrip("/") + path


def _objects(answer: Any) -> list[dict[str, Any]]:
    if not isinstance(answer, list) or not all(isinstance(item, dict) for item in answer):
        raise Unreachable("the distribution service answered a listing without a JSON array of objects")
    return answer


def _outcome(method: str, url: str, response: httpx.Response) -> dict[str, Any]:
    answer = _answer(method, url, response)
    if not isinstance(answer, dict):
        raise Unreachable(f"{method} {url} answered {response.status_code} without a JSON object")
    return answer


def _answer(method: str, url: str, response: httpx.Response) -> Any:
    """The JSON of a 2xx answer ({} when it has no body); raises Rejected or Unreachable otherwise."""
    status = response.status_code
    if 200 <= status < 300:
        if status == 204 or not response.content:
            return {}
        try:
            return response.json()
        except ValueError as error:
            raise Unreachable(f"{method} {url} answered {status} without a JSON body") from error
    message = response.text.strip() or f"HTTP {status}"
    if status in _REJECTING:
        raise Rejected(message, status)
    raise Unreachable(f"{method} {url} answered {status}: {message}")
