"""A missing server skips a newcomer's test and fails CI's (tests/support/required.py)."""

from __future__ import annotations

import pytest

from .support.required import REQUIRE_ENV, unavailable


def test_a_missing_server_skips_where_servers_are_not_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no NATS"):
        unavailable("no NATS")


def test_a_missing_server_fails_where_servers_are_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="no Chromium"):
        unavailable("no Chromium")
