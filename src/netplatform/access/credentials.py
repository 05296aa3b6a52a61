"""Credentials: a name and a password, as an ``Authorization: Basic`` header carries them, and
the configured identities (NETPLATFORM_USERS) they are checked against."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .passwords import hash_configured, verify_password


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
