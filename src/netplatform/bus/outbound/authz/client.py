"""The authz service's REST API, called over HTTP as any outside client would (docs/security.md).

The bus controller creates each topic's publisher and subscriber roles there, makes a client's
identity a member of one, and removes both again. It only needs to know whether a call took
effect: any 2xx does, and so does 409 for a membership (it exists already) and 404 for a removal
(it is gone already). A role's creation says whether it made the role (2xx) or found one (409):
the bus adopts no role it did not create (outbound/authz/provisioning.py). Anything else,
including no answer at all, raises :class:`AuthzCallFailed` with a reason fit for
``statusReason``, in the reference's words (``Failed to add user <id> to role <role>``) followed
by what the service answered.
"""

from __future__ import annotations

import ssl
from collections.abc import Collection
from typing import Any
from urllib.parse import quote

import httpx

from ....access.platform import BUS, credential
from ....settings import Settings
from ....web.tls import verifying_context
from ..answers import answer_reason

_WILDCARDS = ("", "0.0.0.0", "::")  # noqa: S104 - recognised here, never bound


class AuthzCallFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def default_authz_url(settings: Settings) -> str:
    """This process's own authz listener: ``http(s)://<host>:<authz_port>`` (loopback when the
    process listens on every address), as the console reaches the services it is a client of."""
    scheme = "https" if settings.tls_cert else "http"
    host = "127.0.0.1" if settings.host in _WILDCARDS else settings.host
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{settings.authz_port}"


class AuthzClient:
    """Thread-safe (one pooled httpx client); create once per app and :meth:`close` at shutdown."""

    def __init__(
        self, base_url: str, user: str, password: str, timeout_s: float, tls: ssl.SSLContext | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(timeout=timeout_s, auth=(user, password), verify=tls or True)

    @classmethod
    def of(cls, settings: Settings) -> AuthzClient:
        """The bus_authz_* settings; by default this process's authz service, as svc.bus."""
        user, password = credential(settings, BUS, settings.bus_authz_user, settings.bus_authz_password)
        url = settings.bus_authz_url or default_authz_url(settings)
        return cls(
            url, user, password, settings.bus_authz_timeout_s, verifying_context(settings.bus_ca_bundle)
        )

    def close(self) -> None:
        self._http.close()

    def create_role(self, name: str, description: str) -> bool:
        """True when this call created the role, False when a role of that name exists (409)."""
        body = {"name": name, "description": description}
        status = self._call("POST", "/authz/role", body, fine=(409,), failure=f"Failed to create role {name}")
        return status != 409

    def delete_role(self, name: str) -> None:
        """Delete the role (its memberships and grants go with it)."""
        path = f"/authz/role/{_segment(name)}"
        self._call("DELETE", path, fine=(404,), failure=f"Failed to delete role {name}")

    def add_member(self, user: str, role: str) -> None:
        body = {"user": user, "role": role}
        failure = f"Failed to add user {user} to role {role}"
        self._call("POST", "/authz/userRole", body, fine=(409,), failure=failure)

    def remove_member(self, user: str, role: str) -> None:
        path = f"/authz/userRole/{_segment(user)}/{_segment(role)}"
        self._call("DELETE", path, fine=(404,), failure=f"Failed to remove user {user} from role {role}")

    def _call(self, method: str, path: str, body: Any = None, *, fine: Collection[int], failure: str) -> int:
        """The answer's status, when 2xx or ``fine``."""
        url = self.base_url + path
        try:
            response = self._http.request(method, url, json=body)
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as error:
            raise AuthzCallFailed(f"{failure}: authz service unreachable at {url}: {error}") from error
        status = response.status_code
        if 200 <= status < 300 or status in fine:
            return status
        raise AuthzCallFailed(f"{failure}: {method} {url} answered {status}: {answer_reason(response)}")


def _segment(text: str) -> str:
    return quote(text, safe="")
