"""REST endpoints a resolution may read, all named by the operator, never by a CBA.

``sdnc`` is the platform's own config tree (NETPLATFORM_EXECUTION_SDNC_URL, default this
process's config tree listener, with NETPLATFORM_EXECUTION_SDNC_USER/PASSWORD, default the first
NETPLATFORM_USERS entry). Other selectors come from NETPLATFORM_EXECUTION_REST_SOURCES,
``name=url`` comma-separated (credentials in the URL's user-info). A ``url-path`` is always
joined to the configured base: an absolute URL in a CBA is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ...settings import Settings

SDNC = "sdnc"
_WILDCARDS = ("", "0.0.0.0", "::")  # noqa: S104 - recognised here, never bound
_RESTCONF = "/restconf"


class RestFailed(Exception):
    pass


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    auth: tuple[str, str] | None


def default_configtree_url(settings: Settings) -> str:
    """This process's own config tree listener (loopback when it listens on every address)."""
    scheme = "https" if settings.tls_cert else "http"
    host = "127.0.0.1" if settings.host in _WILDCARDS else settings.host
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{settings.configtree_port}"


def parse_sources(text: str) -> dict[str, Endpoint]:
    """``name=url,...``; the URL's user-info, when given, is the Basic credential."""
    sources: dict[str, Endpoint] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, url = item.partition("=")
        parts = urlsplit(url.strip())
        if not sep or not name.strip() or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"NETPLATFORM_EXECUTION_REST_SOURCES entry {item!r} must be name=http(s)://host..."
            )
        auth = (parts.username or "", parts.password or "") if parts.username else None
        netloc = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
        if ":" in (parts.hostname or ""):
            netloc = f"[{parts.hostname}]" + (f":{parts.port}" if parts.port else "")
        sources[name.strip()] = Endpoint(urlunsplit((parts.scheme, netloc, parts.path, "", "")), auth)
    return sources


class RestSources:
    """Thread-safe: one pooled client for every call."""

    def __init__(self, endpoints: dict[str, Endpoint], timeout_s: float, verify: Any = True) -> None:
        self.endpoints = endpoints
        self._http = httpx.Client(timeout=timeout_s, verify=verify)

    @classmethod
    def of(cls, settings: Settings) -> RestSources:
        first_user, first_password = settings.first_user()
        endpoints = parse_sources(settings.execution_rest_sources)
        endpoints.setdefault(
            SDNC,
            Endpoint(
                (settings.execution_sdnc_url or default_configtree_url(settings)).rstrip("/"),
                (
                    settings.execution_sdnc_user or first_user,
                    settings.execution_sdnc_password or first_password,
                ),
            ),
        )
        return cls(endpoints, settings.execution_rest_timeout_s)

    def close(self) -> None:
        self._http.close()

    def get_json(self, selector: str, path: str) -> Any:
        """The JSON answer of ``GET <base><path>``; None when the endpoint answers 404."""
        endpoint = self.endpoints.get(selector)
        if endpoint is None:
            raise RestFailed(f"no REST endpoint is configured for selector ({selector})")
        if "://" in path or path.startswith("//"):
            raise RestFailed(
                f"url-path ({path}) must be a path: endpoints come from the operator's configuration"
            )
        if selector == SDNC and path.startswith(_RESTCONF + "/"):
            path = path[len(_RESTCONF) :]  # the config tree serves /config/... at its root
        url = endpoint.base_url.rstrip("/") + "/" + path.lstrip("/")
        try:
            answer = self._http.get(url, auth=endpoint.auth, headers={"Accept": "application/json"})
        except httpx.HTTPError as error:
            raise RestFailed(f"GET {path} on {selector} failed: {type(error).__name__}") from None
        if answer.status_code == 404:
            return None
        if answer.status_code != 200:
            raise RestFailed(f"GET {path} on {selector} answered {answer.status_code}")
        try:
            return answer.json()
        except ValueError:
            raise RestFailed(f"GET {path} on {selector} answered no JSON") from None
