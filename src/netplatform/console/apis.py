"""The services the console is a client of: their base URLs and calls with a user's credentials."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from ..access.permissions import Permission
from ..settings import SERVICE_NAMES, Settings
from .grants import parse_permissions

# Services with an HTTP API of their own (settings.SERVICE_NAMES never includes the console).
API_SERVICES: tuple[str, ...] = SERVICE_NAMES

# Where sign-in checks credentials and learns what the identity may do: the authz service lists
# an identity's permissions to the identity itself (docs/console.md, "Decisions").
PERMISSIONS_SERVICE = "authz"
PERMISSIONS_PATH = "/authz/perms/user/{user}"


def base_urls(settings: Settings) -> dict[str, str]:
    """Each service's base URL: ``console_api_urls`` overrides, else this process's own listener."""
    scheme = "https" if settings.tls_cert else "http"
    # A wildcard listener is reached on loopback from inside this process.
    wildcard = settings.host in ("0.0.0.0", "::", "")  # noqa: S104
    host = "127.0.0.1" if wildcard else settings.host
    host = f"[{host}]" if ":" in host else host
    urls = {name: f"{scheme}://{host}:{settings.port_of(name)}" for name in API_SERVICES}
    for entry in settings.console_api_urls.split(","):
        name, sep, url = entry.strip().partition("=")
        if not sep:
            continue
        if name.strip() not in API_SERVICES:
            raise ValueError(f"NETPLATFORM_CONSOLE_API_URLS names unknown service {name.strip()!r}")
        urls[name.strip()] = url.strip().rstrip("/")
    return urls


def refusal_status(status: int) -> int:
    """The console's status for a page showing a service's refusal: a client error as the service
    answered it (a 403 stays a 403), anything else 502 (the service failed, not the console)."""
    return status if 400 <= status < 500 else 502


class CredentialsRefused(Exception):
    """The authz service answered 401: no such identity, or not this password."""


class TooManyAttempts(Exception):
    """The authz service answered 429: failed attempts are throttled; ``retry_after`` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = retry_after


class Unreachable(Exception):
    """A service did not answer (connection refused, timeout, TLS failure)."""

    def __init__(self, service: str, url: str, reason: str) -> None:
        super().__init__(f"{service} at {url} did not answer: {reason}")
        self.service = service
        self.url = url
        self.reason = reason


@dataclass(frozen=True)
class ApiError:
    """An API's refusal, as the API phrased it (kernel error body: code, error, details)."""

    status: int
    message: str
    details: list[str]

    @classmethod
    def of(cls, response: httpx.Response) -> ApiError:
        try:
            body = response.json()
        except ValueError:
            return cls(response.status_code, response.text.strip()[:2000] or response.reason_phrase, [])
        if not isinstance(body, dict):
            return cls(response.status_code, str(body)[:2000], [])
        message = str(body.get("error") or body.get("message") or body.get("code") or response.reason_phrase)
        details = [str(item) for item in body.get("details") or [] if str(item) != message]
        return cls(response.status_code, message, details)


def _seconds(retry_after: str | None) -> int:
    return int(retry_after) if retry_after and retry_after.isdigit() else 60


class Apis:
    """One HTTP client for every service call; credentials travel per call, never stored here."""

    def __init__(self, settings: Settings) -> None:
        self.urls = base_urls(settings)
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(15.0, connect=3.0))

    async def close(self) -> None:
        await self.http.aclose()

    async def call(
        self, service: str, method: str, path: str, auth: tuple[str, str] | None, **kwargs: Any
    ) -> httpx.Response:
        url = self.urls[service] + path
        try:
            return await self.http.request(method, url, auth=auth, **kwargs)
        except httpx.HTTPError as error:
            raise Unreachable(service, self.urls[service], str(error) or type(error).__name__) from error

    async def permissions_of(
        self, user: str, password: str, client: str | None = None
    ) -> tuple[Permission, ...] | None:
        """What the identity may do, asked with its own credentials; CredentialsRefused on 401,
        TooManyAttempts on 429.

        None when the authz service cannot say: it does not answer, or answers anything but 200,
        401 or 429 (a proxy's 403, 404 or 502 in front of it is no proof either way; the route
        itself lists every identity's permissions to that identity). ``client``, the browser's
        address, goes as X-Forwarded-For: authz throttles failures by it when it lists the
        console among NETPLATFORM_TRUSTED_PROXIES, and by the console's own address otherwise.
        """
        path = PERMISSIONS_PATH.format(user=quote(user, safe=""))
        headers = {"X-Forwarded-For": client} if client else {}
        try:
            response = await self.call(PERMISSIONS_SERVICE, "GET", path, (user, password), headers=headers)
        except Unreachable:
            return None
        if response.status_code == 401:
            raise CredentialsRefused(user)
        if response.status_code == 429:
            raise TooManyAttempts(_seconds(response.headers.get("retry-after")))
        if response.status_code != 200:
            return None
        try:
            return parse_permissions(response.json())
        except ValueError:
            return None
