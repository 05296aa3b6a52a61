"""The platform key: secrets the platform must present again, sealed at rest; the platform's own
credentials, derived from it.

Passwords a client presents to the platform are argon2id hashes (access/passwords.py). Some
secrets cannot be hashed because the platform itself presents them to someone else: a
subscription's delivery password, a bus publisher's ``userpwd``, a device's password. Those are
*sealed*: encrypted with the platform key (Fernet: AES-128-CBC with HMAC-SHA256, from
``cryptography``) before they reach a table, and opened only where they are presented.

The key is configuration, never stored in the database: ``NETPLATFORM_SECRET_KEY`` (one or more
Fernet keys, comma-separated, newest first), else the file ``NETPLATFORM_SECRET_KEY_FILE``
(default ``<data dir>/secret.key``, one key per line, newest first), which is created with a new
key on the first start when neither exists. Every instance over one database must hold the same
keys. Rotation (docs/security.md): put a new key first, keep the old ones after it, restart, run
``netplatform secrets rotate`` (every sealed value is sealed again with the newest key), then drop
the old keys.

The platform's own identities (access/platform.py) authenticate with credentials derived from the
same keys (HMAC), so nothing about them is stored either, and every instance that holds the keys
derives the same ones.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from sqlalchemy import Column, and_, select, tuple_, update

if TYPE_CHECKING:
    from ..settings import Settings
    from .db import Database

log = logging.getLogger("netplatform.secrets")

SEALED_PREFIX = "sealed:1:"
"""Marks a sealed value in a column, so a value written before sealing existed (clear text) is
told apart from a sealed one and sealed by the next rotation."""


class SecretKeyError(ValueError):
    """The configured key material is unusable; the message says which and why."""


class UnsealError(ValueError):
    """A sealed value that none of the configured keys opens (a key dropped too early, or a
    value from another deployment)."""


@dataclass(frozen=True)
class SecretKeys:
    """The platform's keys, newest first: the newest seals, every one opens."""

    keys: tuple[bytes, ...]

    def __post_init__(self) -> None:
        if not self.keys:
            raise SecretKeyError("at least one secret key is needed")
        for key in self.keys:
            _check_key(key)

    @classmethod
    def parse(cls, text: str, origin: str) -> SecretKeys:
        """Keys separated by commas or lines; blank entries and ``#`` comment lines ignored."""
        entries = [part.strip() for line in text.splitlines() for part in line.split(",")]
        keys = tuple(
            entry.encode("ascii", "replace") for entry in entries if entry and not entry.startswith("#")
        )
        try:
            return cls(keys)
        except SecretKeyError as error:
            raise SecretKeyError(f"{origin}: {error}") from None

    @staticmethod
    def generate() -> bytes:
        return Fernet.generate_key()

    def derive(self, purpose: str) -> list[str]:
        """Credentials for ``purpose`` under each key, newest first: the first is presented, every
        one is accepted (so instances restarted one by one with a new key still talk)."""
        return [_derive(key, purpose) for key in self.keys]


def _check_key(key: bytes) -> None:
    try:
        Fernet(key)
    except (ValueError, TypeError):
        raise SecretKeyError(
            "a secret key is 32 bytes in URL-safe base64, 44 characters"
            " (`netplatform secrets new-key` prints one)"
        ) from None


def _derive(key: bytes, purpose: str) -> str:
    digest = hmac.new(base64.urlsafe_b64decode(key), f"netplatform:{purpose}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).decode("ascii").rstrip("=")


class Sealer:
    """Seals and opens the secrets the platform stores and presents again."""

    def __init__(self, keys: SecretKeys) -> None:
        self.keys = keys
        self._fernet = MultiFernet([Fernet(key) for key in keys.keys])

    def seal(self, clear: str) -> str:
        return SEALED_PREFIX + self._fernet.encrypt(clear.encode("utf-8")).decode("ascii")

    def seal_optional(self, clear: str | None) -> str | None:
        return None if clear is None else self.seal(clear)

    def open(self, stored: str) -> str:
        """The clear value of a stored one; a value stored before sealing existed is its own."""
        if not is_sealed(stored):
            return stored
        try:
            return self._fernet.decrypt(stored[len(SEALED_PREFIX) :].encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError):
            raise UnsealError("a sealed secret none of the configured keys opens") from None

    def open_optional(self, stored: str | None) -> str | None:
        return None if stored is None else self.open(stored)

    def reseal(self, stored: str) -> str:
        """The value sealed with the newest key (a clear value is sealed for the first time)."""
        if not is_sealed(stored):
            return self.seal(stored)
        token = stored[len(SEALED_PREFIX) :].encode("ascii")
        try:
            return SEALED_PREFIX + self._fernet.rotate(token).decode("ascii")
        except InvalidToken:
            raise UnsealError("a sealed secret none of the configured keys opens") from None


def is_sealed(stored: str) -> bool:
    return stored.startswith(SEALED_PREFIX)


def load_keys(env_keys: str | None, key_file: Path, *, create: bool) -> SecretKeys:
    """The configured keys: the environment's, else the file's, else (``create``) a new key
    written to the file, readable by its owner only."""
    if env_keys and env_keys.strip():
        return SecretKeys.parse(env_keys, "NETPLATFORM_SECRET_KEY")
    if key_file.exists():
        return SecretKeys.parse(key_file.read_text(encoding="ascii", errors="replace"), str(key_file))
    if not create:
        raise SecretKeyError(f"no secret key: set NETPLATFORM_SECRET_KEY or create {key_file}")
    return SecretKeys((_create_key_file(key_file),))


def _create_key_file(path: Path) -> bytes:
    key = SecretKeys.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # O_EXCL: of two processes starting at once over one data directory, one writes the key
        # and the other reads it, never two different keys.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_first_key(path)
    with os.fdopen(descriptor, "wb") as file:
        file.write(key + b"\n")
        file.flush()
        os.fsync(file.fileno())
    log.warning(
        "created a new platform secret key in %s; every instance over the same database must hold "
        "the same key (NETPLATFORM_SECRET_KEY or this file), and losing it loses the sealed secrets",
        path,
    )
    return key


def _read_first_key(path: Path) -> bytes:
    # The creator writes the key before the file can be read whole; a concurrent start reads it
    # until it is there.
    for _ in range(500):
        text = path.read_text(encoding="ascii", errors="replace")
        if text.endswith("\n"):
            return SecretKeys.parse(text, str(path)).keys[0]
        time.sleep(0.01)
    raise SecretKeyError(f"{path}: the key file stays empty")


def sealer_of(keys: Sequence[bytes]) -> Sealer:
    return Sealer(SecretKeys(tuple(keys)))


_loaded: dict[tuple[str, str], Sealer] = {}
_loaded_lock = threading.Lock()


def sealer_for(settings: Settings) -> Sealer:
    """The process-wide sealer of the settings' keys (created on first use when none exist)."""
    env = settings.secret_key.get_secret_value() if settings.secret_key is not None else ""
    key_file = settings.effective_secret_key_file
    cache_key = (env, str(key_file.resolve()))
    with _loaded_lock:
        sealer = _loaded.get(cache_key)
        if sealer is None:
            sealer = _loaded[cache_key] = Sealer(load_keys(env, key_file, create=True))
        return sealer


def reseal_column(db: Database, sealer: Sealer, column: Column[Any], batch: int = 500) -> int:
    """Seal every value of a sealed column again with the newest key (and seal a value stored in
    clear before sealing existed); the number of values rewritten. Batches by primary key, each
    its own transaction, so a large table never holds one long transaction."""
    table = column.table
    key_columns = list(table.primary_key.columns)
    rewritten = 0
    after: tuple[Any, ...] | None = None
    while True:
        with db.write() as session:
            query = (
                select(*key_columns, column).where(column.is_not(None)).order_by(*key_columns).limit(batch)
            )
            if after is not None:
                query = query.where(tuple_(*key_columns) > tuple_(*after))
            rows = session.execute(query).all()
            for row in rows:
                *keys, stored = row
                new = sealer.reseal(stored)
                condition = and_(*(key == value for key, value in zip(key_columns, keys, strict=True)))
                session.execute(update(table).where(condition).values({column.name: new}))
                rewritten += 1
        if len(rows) < batch:
            return rewritten
        after = tuple(rows[-1][: len(key_columns)])
