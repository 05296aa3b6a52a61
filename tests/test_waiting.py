"""The support package's wait: it returns once the condition holds, and fails naming what it awaited."""

from __future__ import annotations

import itertools

import pytest

from .support.waiting import wait_until


def test_returns_once_the_condition_holds() -> None:
    calls = itertools.count(1)
    wait_until(lambda: next(calls) >= 3, timeout=5, interval=0)
    assert next(calls) == 4  # asked three times, no more


def test_fails_naming_what_it_waited_for() -> None:
    with pytest.raises(AssertionError, match=r"timed out after 0\.05 s waiting for the moon"):
        wait_until(lambda: False, timeout=0.05, what="the moon")


def test_a_described_failure_names_the_last_answer() -> None:
    seen = ["nothing yet"]
    with pytest.raises(AssertionError, match="still nothing yet"):
        wait_until(lambda: False, timeout=0.05, what=lambda: f"still {seen[-1]}")
