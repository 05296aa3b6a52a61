"""Waiting for a condition instead of sleeping a fixed time (issue 27).

A fixed sleep is either too short on a loaded machine (a flaky failure) or longer than needed
(a slow suite). ``wait_until`` polls a condition at a short interval and returns as soon as it
holds; a condition that never holds fails with a message that says what was awaited.
"""

from __future__ import annotations

import time
from collections.abc import Callable

INTERVAL_S = 0.05  # short enough not to slow a test, long enough not to busy the machine


Described = str | Callable[[], str] | None
"""What is awaited, for the failure's message: a text, or a function that makes it at the failure
(to name the last answer seen); by default the condition's name."""


def _describe(condition: Callable[..., object], what: Described) -> str:
    if callable(what):
        return what()
    return what or str(getattr(condition, "__name__", repr(condition)))


def wait_until(
    condition: Callable[[], object],
    timeout: float = 20,
    what: Described = None,
    interval: float = INTERVAL_S,
) -> None:
    """Return once ``condition()`` is true; AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {_describe(condition, what)}")
        time.sleep(interval)
