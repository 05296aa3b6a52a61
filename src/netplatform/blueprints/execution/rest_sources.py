"""REST endpoints a resolution may read, all named by the operator, never by a CBA.

``sdnc`` is the platform's own config tree (NETPLATFORM_EXECUTION_SDNC_URL, default this
process's config tree listener), read as the run's caller: the execution presents its own
credential (:func:`configtree_credential`) and names the caller in ``X-PLATFORM-ACTING-FOR``,
so the config tree decides on the caller's permissions (a caller refused ``GET /config/...``
is refused through a run too). Other selectors come from NETPLATFORM_EXECUTION_REST_SOURCES,
``name=url`` comma-separated (credentials in the URL's user-info), outside the platform: read
with the operator's credentials.

A ``url-path`` is always a path under the configured base (an absolute URL in a CBA is
refused), and stays there however it is read: with its dot segments resolved, percent-decoded
(once, and again until nothing changes: ``%2e%2e``, ``%252e``, encoded slashes), with
backslashes as slashes and ``..;`` as ``..``, it never climbs above the base; otherwise nothing
is sent (:func:`path_under_base`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx

from ...access.acting import ACTING_FOR_HEADER
from ...access.platform import EXECUTION, credential
from ...settings import Settings

SDNC = "sdnc"
_WILDCARDS = ("", "0.0.0.0", "::")  # noqa: S104 - recognised here, never bound
_RESTCONF = "/restconf"
_DECODINGS = 4


class RestFailed(Exception):
    pass


@dataclass(frozen=True)
class Endpoint:
    """``acts_for_caller``: the endpoint is the platform's, and decides on the run's caller."""

    base_url: str
    auth: tuple[str, str] | None
    acts_for_caller: bool = False


def configtree_credential(settings: Settings) -> tuple[str, str]:
    """The credential the execution presents to the config tree (the ``sdnc`` source).

    It proves the hop, not the read: every read names the run's caller, and the config tree
    takes it only from an identity holding ``platform.configtree.actas|<caller>|call``
    (access/acting.py), then decides on the caller's permissions. The platform identity
    ``svc.execution`` (access/platform.py), whose role holds only that, unless
    NETPLATFORM_EXECUTION_SDNC_USER/PASSWORD name another.
    """
    return credential(settings, EXECUTION, settings.execution_sdnc_user, settings.execution_sdnc_password)


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
        endpoints = parse_sources(settings.execution_rest_sources)
        endpoints.setdefault(
            SDNC,
            Endpoint(
                (settings.execution_sdnc_url or default_configtree_url(settings)).rstrip("/"),
                configtree_credential(settings),
                acts_for_caller=True,
            ),
        )
        return cls(endpoints, settings.execution_rest_timeout_s)

    def close(self) -> None:
        self._http.close()

    def get_json(self, selector: str, path: str, caller: str | None = None) -> Any:
        """The JSON answer of ``GET <base><path>``; None when the endpoint answers 404. An
        endpoint of the platform's is read as ``caller`` (none: refused, nothing sent)."""
        endpoint = self.endpoints.get(selector)
        if endpoint is None:
            raise RestFailed(f"no REST endpoint is configured for selector ({selector})")
        if "://" in path or path.startswith("//"):
            raise RestFailed(
                f"url-path ({path}) must be a path: endpoints come from the operator's configuration"
            )
        if selector == SDNC and path.startswith(_RESTCONF + "/"):
            path = path[len(_RESTCONF) :]  # the config tree serves /config/... at its root
        url = endpoint.base_url.rstrip("/") + path_under_base(path)
        headers = {"Accept": "application/json"}
        if endpoint.acts_for_caller:
            if caller is None:
                raise RestFailed(f"GET {path} on {selector} needs the run's caller, and it has none")
            headers[ACTING_FOR_HEADER] = caller
        try:
            answer = self._http.get(url, auth=endpoint.auth, headers=headers)
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
        except RecursionError:
            raise RestFailed(f"GET {path} on {selector} answered JSON nested too deeply") from None


def path_under_base(path: str) -> str:
    """``path`` (and its query) as sent below the base: ``/`` and its segments, dot segments
    resolved. RestFailed when any reading of it climbs above the base (module docstring)."""
    if "#" in path:
        raise RestFailed(f"url-path ({path}) must not hold a fragment")
    raw, mark, query = path.partition("?")
    readings = [raw]
    while len(readings) <= _DECODINGS and unquote(readings[-1]) != readings[-1]:
        readings.append(unquote(readings[-1]))
    if unquote(readings[-1]) != readings[-1]:
        raise RestFailed(f"url-path ({path}) is percent-encoded too many times")
    for reading in readings:
        if "\x00" in reading or _climbs(reading.replace("\\", "/")):
            raise RestFailed(f"url-path ({path}) leaves the endpoint's base path")
    return "/" + "/".join(_resolved(raw.lstrip("/").split("/"))) + mark + query


def _dot(segment: str) -> str | None:
    """``.`` or ``..`` when a server could read the segment as one (``..;param`` too)."""
    name = segment.split(";", 1)[0]
    return name if name in (".", "..") else None


def _climbs(path: str) -> bool:
    depth = 0
    for segment in path.lstrip("/").split("/"):
        dot = _dot(segment)
        if dot == "..":
            depth -= 1
            if depth < 0:
                return True
        elif dot is None and segment:
            depth += 1
    return False


def _resolved(segments: list[str]) -> list[str]:
    kept: list[str] = []
    for segment in segments:
        dot = _dot(segment)
        if dot == "..":
            kept.pop()  # never empty: _climbs said so
        elif dot is None:
            kept.append(segment)
    if segments and _dot(segments[-1]) is not None:
        kept.append("")  # "a/b/.." names the directory a/
    return kept
