"""covers(): a holder's grants bound what it may pass on, read from the matching rules as set
inclusion. Sound (never covers what it does not) over every pairing of a generated set of
grants with concrete required permissions; the HTTP behaviour is tests/authz/test_bounds.py."""

from __future__ import annotations

import random

import pytest

from netplatform.access.permissions import Permission, any_matches, covers, matches

SEGMENTS = ["a", "b", "ab", "a*", "*", "!a.", "!x", "a,b", "b*,c", "!a.,b"]
PLAIN = ["a", "b", "ab", "a*", "*", "a,b", "ab,b*", "x", " a , b"]
ACTIONS = ["read", "write", "read,write", "*", "call", "read, call"]
REQUIRED = [
    Permission(type_, instance, action)
    for type_ in ("t", "u")
    for instance in (
        "a", "b", "ab", "abc", "x", ":a", ":b", ":ab", ":a:b", ":a:b:c", ":b:a", ":ax", ":c",
        ":a/b", ":ab:ab:ab", ":x:a", ":a:x", ":aa:b",
    )
    for action in ("read", "write", "call")
]  # fmt: skip


def _instance(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(PLAIN)
    return ":" + ":".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 3)))


def _permission(rng: random.Random) -> Permission:
    return Permission(rng.choice(["t", "u", "*"]), _instance(rng), rng.choice(ACTIONS))


@pytest.mark.parametrize("seed", range(4))
def test_covering_never_reaches_further_than_the_holder(seed: int) -> None:
    rng = random.Random(seed)
    covered = 0
    for _ in range(20_000):
        held = [_permission(rng) for _ in range(rng.randint(1, 3))]
        granted = _permission(rng)
        if not covers(held, granted):
            continue
        covered += 1
        reached = [required for required in REQUIRED if matches(granted, required)]
        beyond = [required for required in reached if not any_matches(held, required)]
        assert not beyond, (held, granted, beyond)
    assert covered > 500  # the property was tried on many covered grants, not on none


@pytest.mark.parametrize(
    ("held", "granted"),
    [
        ("*|*|*", "*|*|*"),
        ("t|*|read,write", "t|topics|write"),
        ("t|*|read,write", "t|a,b|read, write"),
        ("t|logs*|read", "t|logs-2030*,logs|read"),
        ("t|:org:alarms:*|read", "t|:org:alarms:east|read"),
        ("t|:org:alarms:*|read", "t|:org:alarms:*|read"),
        ("t|:org:alarms:*|read", "t|:org:alarms:east:*|read"),
        ("t|:org:!al.*:*|read", "t|:org:alarms:*|read"),
        ("t|:org:!al.*:*|read", "t|:org:!al.*:*|read"),
        ("t|:*:b|read", "t|:a,c:b|read"),
    ],
)
def test_what_a_holder_may_pass_on(held: str, granted: str) -> None:
    assert covers([Permission.parse(held)], Permission.parse(granted))


@pytest.mark.parametrize(
    ("held", "granted"),
    [
        ("t|*|read", "t|*|*"),
        ("t|*|read", "*|x|read"),
        ("t|a|read", "t|a,b|read"),
        ("t|a*|read", "t|*|read"),
        ("t|a|read", "t|a*|read"),
        ("t|logs*|read", "t|log*|read"),
        ("t|:org:alarms:*|read", "t|:org:*|read"),
        ("t|:org:alarms:*|read", "t|:org:!.*:x|read"),
        ("t|:org:alarms|read", "t|:org:alarms:*|read"),
        ("t|:org:a*|read", "t|:org:!a.*|read"),
        ("t|x|read", "t|:x|read"),
        ("t|:x|read", "t|x|read"),
    ],
)
def test_what_a_holder_may_not_pass_on(held: str, granted: str) -> None:
    assert not covers([Permission.parse(held)], Permission.parse(granted))


def test_a_list_may_be_covered_item_by_item_by_several_grants() -> None:
    held = [Permission.parse("t|a|read"), Permission.parse("t|b|read,write")]
    assert covers(held, Permission.parse("t|a,b|read"))
    assert not covers(held, Permission.parse("t|a,b|write"))
    assert all(covers(held, permission) for permission in held)
