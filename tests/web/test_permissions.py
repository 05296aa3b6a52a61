"""Permissions: the reference's matching rules, and every route of every service declaring one."""

from __future__ import annotations

from pathlib import Path

import pytest

from netplatform.access.permissions import Permission, matches
from netplatform.services import create_service_app
from netplatform.settings import SERVICE_NAMES, Settings
from netplatform.web.permissions import AUTHENTICATED, PERMISSION_KEY, RULE_KEY, declared


def p(text: str) -> Permission:
    return Permission.parse(text)


@pytest.mark.parametrize(
    ("granted", "required", "expected"),
    [
        # The reference's table (authz.md 1.1).
        ("platform.router.topic|*|pub", "platform.router.topic|:topic.platform.router.alarms|pub", True),
        (
            "platform.router.topic|:topic.platform.router.*|pub,sub",
            "platform.router.topic|:topic.platform.router.alarms|sub",
            True,
        ),
        (
            "platform.router.topic|:topic.platform.router.alarms|pub",
            "platform.router.topic|:topic.platform.router.alarms|view",
            False,
        ),
        ("platform.bus.api.topics|mr|GET", "platform.bus.api.topics|mr|POST", False),
        # Types match exactly, except the one grant of everything.
        ("platform.bus.api|*|*", "platform.policy.api|x|read", False),
        ("*|*|*", "platform.policy.api|x|read", True),
        # Plain instances: comma lists and prefixes; a key form never matches a plain grant.
        ("t|topics,feeds|read", "t|feeds|read", True),
        ("t|top*|read", "t|topics|read", True),
        ("t|topics|read", "t|:topics|read", False),
        # Key form: segment by segment, '*' open-ended only last, alternatives, regular expressions.
        ("t|:a:b:*|x", "t|:a:b:c:d|x", True),
        ("t|:a:b|x", "t|:a:b:c|x", False),
        ("t|:a:*:c|x", "t|:a:z:c|x", True),
        ("t|:a:b,c|x", "t|:a:c|x", True),
        ("t|:a:!b[0-9]+|x", "t|:a:b12|x", True),
        ("t|:a:!b[0-9]+|x", "t|:a:bx|x", False),
        ("t|:a/b|x", "t|:a:b|x", True),
        # Actions: '*' and comma lists.
        ("t|i|read,write", "t|i|write", True),
        ("t|i|*", "t|i|anything", True),
    ],
)
def test_matching_follows_the_reference(granted: str, required: str, expected: bool) -> None:
    assert matches(p(granted), p(required)) is expected


@pytest.mark.parametrize("text", ["a|b", "a|b|c|d", "|b|c", "a||c", "a|b| "])
def test_a_malformed_permission_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Permission.parse(text)


@pytest.mark.parametrize("name", SERVICE_NAMES)
def test_every_route_declares_its_permission(name: str, tmp_path: Path) -> None:
    app = create_service_app(name, Settings(data_dir=tmp_path, users="admin:admin"))
    undeclared = []
    for route in app.state.route_table.routes:
        extra = route.openapi_extra or {}
        if extra.get("security") == []:
            assert PERMISSION_KEY not in extra, f"{route.path} is public and declares a permission"
            continue
        for method in sorted(route.methods or ()):
            required = declared(extra, method)
            if required is None:
                undeclared.append(f"{method} {route.path}")
            elif required == AUTHENTICATED:
                assert extra.get(RULE_KEY), f"{method} {route.path}: a per-object route names its rule"
    assert not undeclared, f"{name}: routes without a permission: {undeclared}"
