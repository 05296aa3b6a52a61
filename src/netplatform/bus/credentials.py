"""Generated publisher ids and credentials (reference section 4), and how answers mask them."""

from __future__ import annotations

import secrets
import string

_ALPHABET = string.digits + string.ascii_lowercase


def _random(length: int) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def publisher_id(feed_id: str) -> str:
    """``<feedId>.<5 chars>``, e.g. ``7.k3x9a``."""
    return f"{feed_id}.{_random(5)}"


def publisher_username() -> str:
    """``tmp_`` and 15 characters: 19 in all, within the distribution service's 20."""
    return "tmp_" + _random(15)


def publisher_password() -> str:
    return _random(15)


MASK = "********"
"""A publisher's or subscriber's ``userpwd`` as a writer sees it in every answer but the one that
created it (issue 36, point 4); sent back in a replacement, it keeps the stored password."""


def kept_or_new(given: str | None, stored: str | None) -> str | None:
    """A replacement's ``userpwd``: the stored one when the mask (or nothing) comes back."""
    return stored if given is None or given == MASK else given
