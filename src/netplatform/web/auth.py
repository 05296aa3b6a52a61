"""HTTP Basic authentication at the web kernel: which routes need credentials, the caller's
address, the header a client presents. (The credentials themselves and their checks are the
access floor's: access/credentials.py.)

Every route needs credentials unless its service declares it public by passing
``openapi_extra=PUBLIC`` to the route decorator. That is the OpenAPI way of saying "this
operation needs no security" (``security: []``), so the published document and the enforced
behaviour come from one declaration and cannot drift apart.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

PUBLIC: dict[str, Any] = {"security": []}
"""Pass as ``openapi_extra`` to a route that needs no platform credentials."""


def client_address(scope: Mapping[str, Any]) -> str | None:
    """The caller's address: the connection's peer, or what a trusted proxy forwarded
    (``NETPLATFORM_TRUSTED_PROXIES``: the server rewrites the scope's client then)."""
    client = scope.get("client")
    return str(client[0]) if client else None


def basic_header(user: str, password: str) -> str:
    """The ``Authorization`` header value for a user and password."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
