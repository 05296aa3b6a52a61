"""When no decision can be taken now: the access floor's own exceptions, which the web kernel
answers in the service's error body (web/errors.py ``refusal_of``), as it answers the store's
:class:`~netplatform.store.errors.WriteConflict`. access/ imports nothing of web/."""

from __future__ import annotations


class DecisionRefused(Exception):
    """No decision now: ``status`` is the HTTP status the kernel answers, ``retry_after_s`` its
    ``Retry-After`` when the caller may try again after a known wait."""

    status: int = 503

    def __init__(self, message: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s


class DecisionsUnavailable(DecisionRefused):
    """The authorization data cannot be read, the check threads are all taken, or this site's
    replica of the central directory is past its offline bound (503)."""

    status = 503


class TooManyFailures(DecisionRefused):
    """The throttle holds a name or an address after failed authentications (429)."""

    status = 429
