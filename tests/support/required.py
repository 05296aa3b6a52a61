"""A server a test needs (NATS JetStream, Chromium, onapsdk's site, PostgreSQL's binaries) that this
machine lacks: a skip for a newcomer's ``make test``, a failure in CI.

``.ci/run`` sets ``NETPLATFORM_TEST_REQUIRE_SERVERS=1``: there every test runs, and a missing
server fails the run instead of hiding the tests that need it.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

REQUIRE_ENV = "NETPLATFORM_TEST_REQUIRE_SERVERS"


def servers_required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def unavailable(what: str) -> NoReturn:
    """Skip for want of ``what``; fail instead when servers are required."""
    if servers_required():
        pytest.fail(f"{what} ({REQUIRE_ENV} is set: every test must run)", pytrace=False)
    pytest.skip(what)
