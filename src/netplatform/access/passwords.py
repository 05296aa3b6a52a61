"""Secrets stored only as slow salted hashes: argon2id (argon2-cffi's defaults, RFC 9106's
low-memory profile). Verifying costs tens of milliseconds on purpose; callers on the event loop
run it in a thread, and the kernel remembers verified credentials (per generation)."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_HASHER = PasswordHasher()

# Verified against when an identity does not exist, so a wrong user name costs what a wrong
# password does (its existence does not show in the response time).
_ABSENT = _HASHER.hash("netplatform: no such identity")


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify_password(encoded: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``encoded`` was made from; False for no (or an empty) hash,
    after the same work as a real check."""
    stored = bool(encoded)
    try:
        return _HASHER.verify(encoded if stored else _ABSENT, password) and stored  # type: ignore[arg-type]
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def is_hashed(value: str) -> bool:
    return value.startswith("$argon2")
