"""Which tests are slow: the one place the ``slow`` marker is given (issue 27).

``make test-fast`` runs ``-m "not slow"``: the unit and single-service tests. A test is slow when
it runs whole ``netplatform serve`` processes (e2e, chaos), drives a browser (the console's
pages), generates requests from a whole OpenAPI document (fuzz, openapi examples), or took
more than 5 s in a measured run (``pytest --durations``; SLOW_TESTS names those, with the
time seen).
"""

from __future__ import annotations

import pytest

SLOW_FOLDERS = ("e2e", "chaos")
"""Whole platforms in child processes: 12 to 36 s a test (chaos), several seconds each (e2e)."""

SLOW_FILES = ("test_fuzz.py", "test_openapi_examples.py")
"""Schemathesis over every operation: about 150 s (fuzz), 15 to 47 s per service (examples)."""

SLOW_FIXTURES = frozenset({"page", "browser"})
"""The console's browser tests: a Chromium per module, a page load per step."""

SLOW_TESTS: dict[str, str] = {}
"""Further tests (a node id's part after ``tests/``, parameters left out) and the time one took."""


def is_slow(item: pytest.Item) -> bool:
    path = item.path.as_posix()
    below = path.split("/tests/", 1)[-1]
    if below.split("/", 1)[0] in SLOW_FOLDERS or item.path.name in SLOW_FILES:
        return True
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    name = item.nodeid.split("[", 1)[0].split("tests/", 1)[-1]
    return name in SLOW_TESTS


def mark_slow(items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)
