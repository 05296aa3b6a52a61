"""Feed endpoint passwords: stored only as argon2id hashes (:mod:`netplatform.access.passwords`),
checked on every publish.

An argon2 hash or check costs tens of milliseconds and 64 MiB on purpose, so:

* it runs in this module's own few threads (:data:`_ARGON2`), never on the event loop: a burst
  of wrong passwords cannot take every core and gigabytes of memory, and the endpoints of one
  request are hashed side by side;
* :class:`EndpointSecrets` remembers, per feed, the ``Authorization`` values known to match the
  feed's current hashes (verified by a publish, or hashed here from a create or update) and the
  hash each matched. A publisher sends the same value with every file: one check, then a dict
  lookup. An update that repeats a password (the bus controller sends every endpoint on every
  change) keeps the stored hash instead of computing a new one.
* Any change of the feed's endpoints writes new hashes (a fresh salt even for an unchanged
  password), so what was remembered for the feed no longer applies and is forgotten at its next
  use: a changed or removed password is refused at once, on every instance, with no extra read.
  Refusals are never remembered.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..access.credentials import Credentials
from ..access.passwords import hash_password, verify_password
from ..web.auth import basic_header
from ..web.errors import BadRequest
from .feed_model import Endpoint, EndpointIn, Feed, FeedAuthorization, RequestedAuthorization

_ARGON2 = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2), thread_name_prefix="argon2")
_REMEMBERED_FEEDS = 4096
_REMEMBERED_PER_FEED = 256
MISSING_PASSWORD = 'JSONObject["password"] not found.'  # noqa: S105 - the reader's text, no secret


def verify_secret(encoded: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``encoded`` was made from; None costs the same and fails."""
    return _ARGON2.submit(verify_password, encoded, password).result()


@dataclass
class _Remembered:
    """The Authorization values known to match one feed's endpoints while it has these hashes."""

    hashes: tuple[str, ...]
    matches: dict[str, tuple[str, str]] = field(default_factory=dict)  # header -> (endpoint id, hash)


class EndpointSecrets:
    """The argon2 work of a feed's endpoints, and what it found (for worker threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._feeds: dict[int, _Remembered] = {}

    # --- provisioning ----------------------------------------------------------------------

    def hashes_for(self, requested: RequestedAuthorization, current: Feed | None) -> list[str | None]:
        """The hash to store for each endpoint the request gives a password for (None where an
        update leaves it out): the hash ``current`` already has when it is known to match,
        else a new one. Computed before the write transaction, so no row waits on argon2."""
        known = [self._known_hash(current, entry) for entry in requested.endpoint_ids]
        fresh = [
            entry.password
            for entry, hashed in zip(requested.endpoint_ids, known, strict=True)
            if hashed is None and entry.password is not None
        ]
        made = iter(list(_ARGON2.map(hash_password, fresh)))
        return [
            hashed if hashed is not None or entry.password is None else next(made)
            for entry, hashed in zip(requested.endpoint_ids, known, strict=True)
        ]

    def _known_hash(self, current: Feed | None, entry: EndpointIn) -> str | None:
        if current is None or entry.password is None:
            return None
        match = self._recall(current.id, current.authorization.endpoint_ids, _header(entry))
        return match[1] if match is not None and match[0] == entry.id else None

    def remember_stored(
        self, feed_id: int, requested: RequestedAuthorization, stored: FeedAuthorization
    ) -> None:
        """After a create or update committed ``stored``: its given passwords match its hashes."""
        matches = {
            _header(entry): (endpoint.id, endpoint.password_hash)
            for entry, endpoint in zip(requested.endpoint_ids, stored.endpoint_ids, strict=True)
            if entry.password is not None
        }
        self._remember(feed_id, stored.endpoint_ids, matches)

    # --- publishing ------------------------------------------------------------------------

    def endpoint_of(
        self, feed_id: int, endpoints: Sequence[Endpoint], header: str, credentials: Credentials
    ) -> str | None:
        """The endpoint id ``credentials`` (parsed from ``header``) prove, else None."""
        found = self._recall(feed_id, endpoints, header)
        if found is not None:
            return found[0]
        candidates = [endpoint for endpoint in endpoints if endpoint.id == credentials.user]
        if not candidates:
            # As slow as a wrong password: the response time does not tell which ids exist.
            verify_secret(None, credentials.password)
            return None
        for endpoint in candidates:
            if verify_secret(endpoint.password_hash, credentials.password):
                self._remember(feed_id, endpoints, {header: (endpoint.id, endpoint.password_hash)})
                return endpoint.id
        return None

    # --- memory ----------------------------------------------------------------------------

    def _recall(self, feed_id: int, endpoints: Sequence[Endpoint], header: str) -> tuple[str, str] | None:
        hashes = _hashes(endpoints)
        with self._lock:
            remembered = self._feeds.get(feed_id)
            if remembered is None:
                return None
            if remembered.hashes != hashes:  # the feed changed: forget what held before
                del self._feeds[feed_id]
                return None
            return remembered.matches.get(header)

    def _remember(
        self, feed_id: int, endpoints: Sequence[Endpoint], matches: Mapping[str, tuple[str, str]]
    ) -> None:
        hashes = _hashes(endpoints)
        with self._lock:
            remembered = self._feeds.get(feed_id)
            if remembered is None or remembered.hashes != hashes:
                if len(self._feeds) >= _REMEMBERED_FEEDS:
                    self._feeds.clear()
                remembered = self._feeds[feed_id] = _Remembered(hashes)
            if len(remembered.matches) + len(matches) > _REMEMBERED_PER_FEED:
                remembered.matches.clear()
            remembered.matches.update(matches)


def _hashes(endpoints: Sequence[Endpoint]) -> tuple[str, ...]:
    return tuple(endpoint.password_hash for endpoint in endpoints)


def _header(entry: EndpointIn) -> str:
    assert entry.password is not None
    return basic_header(entry.id, entry.password)


def stored_authorization(
    requested: RequestedAuthorization, hashes: Sequence[str | None], current: FeedAuthorization | None
) -> FeedAuthorization:
    """What is stored for ``requested``: given passwords as their ``hashes``, left-out ones as the
    hash ``current`` (the locked stored feed) has for the same id; 400 for an id it has not."""
    kept: Mapping[str, str] = (
        {endpoint.id: endpoint.password_hash for endpoint in current.endpoint_ids} if current else {}
    )
    pairs = zip(requested.endpoint_ids, hashes, strict=True)
    endpoints = tuple(_stored(entry, hashed, kept) for entry, hashed in pairs)
    return FeedAuthorization(requested.classification, endpoints, requested.endpoint_addrs)


def _stored(entry: EndpointIn, hashed: str | None, kept: Mapping[str, str]) -> Endpoint:
    if hashed is None:
        hashed = kept.get(entry.id)
        if hashed is None:
            raise BadRequest(MISSING_PASSWORD)
    return Endpoint(entry.id, hashed)
