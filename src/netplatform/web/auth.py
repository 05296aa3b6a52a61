"""HTTP Basic authentication: credentials in, identity out.

Every route needs credentials unless its service declares it public by passing
``openapi_extra=PUBLIC`` to the route decorator. That is the OpenAPI way of saying "this
operation needs no security" (``security: []``), so the published document and the enforced
behaviour come from one declaration and cannot drift apart.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

PUBLIC: dict[str, Any] = {"security": []}
"""Pass as ``openapi_extra`` to a route that needs no platform credentials."""


@dataclass(frozen=True)
class Credentials:
    user: str
    password: str


def parse_basic(header_value: str | None) -> Credentials | None:
    """Decode an ``Authorization: Basic ...`` header; None when absent or malformed."""
    if not header_value:
        return None
    scheme, _, token = header_value.strip().partition(" ")
    if scheme.lower() != "basic" or not token:
        return None
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, sep, password = decoded.partition(":")
    if not sep:
        return None
    return Credentials(user, password)


def basic_header(user: str, password: str) -> str:
    """The ``Authorization`` header value for a user and password."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


class UserDirectory:
    """Checks credentials against a fixed table without leaking timing.

    Every stored entry is compared (no early exit on the user name), and each comparison is
    between equal-length digests, so neither the existence of a user nor the length of a
    password shows in the response time.
    """

    def __init__(self, users: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        # Verified header values are remembered by the caller (access/directory.py), per
        # generation of the authorization data, not here. A user may have several passwords
        # (a platform identity during a key rotation).
        pairs = users.items() if isinstance(users, Mapping) else users
        self._digests = [self._digest(user, password) for user, password in pairs]

    @staticmethod
    def _digest(user: str, password: str) -> bytes:
        return hashlib.sha256(f"{user}\x00{password}".encode()).digest()

    def authenticate(self, credentials: Credentials | None) -> str | None:
        """The user name when the credentials are valid, else None."""
        if credentials is None:
            return None
        candidate = self._digest(credentials.user, credentials.password)
        matched = False
        for digest in self._digests:
            matched |= hmac.compare_digest(candidate, digest)
        return credentials.user if matched else None
