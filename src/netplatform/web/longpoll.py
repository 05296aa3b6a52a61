"""Long polls that end when nobody waits for them any more.

A long poll (an edge following central's directory or provisioning) holds its request for up to
half a minute. Two things end it early: the client went away (an edge stopped or cut off: its
handler would otherwise sleep out its wait for nobody), and this process stopping (uvicorn's
graceful shutdown waits for every request in flight, so each open long poll would hold the stop
for up to its whole wait). :func:`process_stopping` is set by the server's stop signal
(server.py); :func:`ended` is what a long poll's wait asks between its looks.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable

from starlette.requests import Request

_stopping = threading.Event()


def process_stopping() -> None:
    """The process is stopping: every long poll answers at its next look."""
    _stopping.set()


def ended(request: Request) -> Callable[[], Awaitable[bool]]:
    """Whether the long poll of ``request`` should answer now: its client is gone, or the process
    stops."""

    async def check() -> bool:
        return _stopping.is_set() or await request.is_disconnected()

    return check
