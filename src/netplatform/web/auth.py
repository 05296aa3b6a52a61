"""HTTP Basic authentication: credentials in, identity out.

Every route needs credentials unless its service declares it public by passing
``openapi_extra=PUBLIC`` to the route decorator. That is the OpenAPI way of saying "this
operation needs no security" (``security: []``), so the published document and the enforced
behaviour come from one declaration and cannot drift apart.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..access.passwords import hash_configured, verify_password

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


def client_address(scope: Mapping[str, Any]) -> str | None:
    """The caller's address: the connection's peer, or what a trusted proxy forwarded
    (``NETPLATFORM_TRUSTED_PROXIES``: the server rewrites the scope's client then)."""
    client = scope.get("client")
    return str(client[0]) if client else None


def basic_header(user: str, password: str) -> str:
    """The ``Authorization`` header value for a user and password."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


class UserDirectory:
    """The identities of a fixed table (NETPLATFORM_USERS), their passwords kept as argon2 hashes.

    Each password is hashed once at start, as a stored identity's is when it is created, so a
    configured name is checked by the same argon2 verification as a stored or an unknown one:
    the time an answer takes says nothing of which kind of name was tried (the kernel verifies
    through :meth:`hashes_of`, on its bounded pool of check threads).
    """

    def __init__(self, users: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        # A user may have several passwords: a platform identity accepts the credential of each
        # configured key (access/platform.py), so that a key rotation can restart instances one
        # at a time.
        pairs = users.items() if isinstance(users, Mapping) else users
        self._hashes: dict[str, list[str]] = {}
        for user, password in pairs:
            self._hashes.setdefault(user, []).append(hash_configured(user, password))

    def hashes_of(self, user: str) -> list[str]:
        """The argon2 hashes of a configured identity's passwords; empty for another name."""
        return self._hashes.get(user, [])

    def authenticate(self, credentials: Credentials | None) -> str | None:
        """The user name when the credentials are valid, else None (one argon2 verification,
        against a stand-in hash for a name not in the table: call from a worker thread)."""
        if credentials is None:
            return None
        hashes: list[str | None] = [*self._hashes.get(credentials.user, [])] or [None]
        matched = any(verify_password(encoded, credentials.password) for encoded in hashes)
        return credentials.user if matched else None
