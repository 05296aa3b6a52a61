"""Domain rules on their own: version order, bounded body decoding, Accept, statistics routing."""

from __future__ import annotations

import pytest

from netplatform.policy.media_types import prefers_yaml
from netplatform.policy.request_bodies import MAX_DEPTH, RepeatedKeys, decode
from netplatform.policy.statistics import counters_for
from netplatform.policy.versions import check_name, check_selector, check_version, sort_key
from netplatform.web.errors import BadRequest, UnsupportedMediaType

API = "/policy/api/v1"


def test_semantic_version_order() -> None:
    versions = [
        "1.10.0",
        "1.9.0",
        "1.10.0-rc.1",
        "1.10.0-rc.2",
        "1.10.0-alpha",
        "2.0.0",
        "1.10.0-rc.10",
        "0.0.1",
    ]
    assert sorted(versions, key=sort_key) == [
        "0.0.1",
        "1.9.0",
        "1.10.0-alpha",
        "1.10.0-rc.1",
        "1.10.0-rc.2",
        "1.10.0-rc.10",
        "1.10.0",
        "2.0.0",
    ]


@pytest.mark.parametrize("version", ["1.0.0", "6.0.1-snapshot", "1.2.3+build.5", "10.20.30"])
def test_valid_versions(version: str) -> None:
    assert check_version(version) == version


@pytest.mark.parametrize("version", ["1.0", "01.0.0", "1.0.0.0", "v1.0.0", "", "1.0.0-" + "a" * 20, "latest"])
def test_invalid_versions(version: str) -> None:
    with pytest.raises(BadRequest):
        check_version(version)


def test_latest_selector_and_names() -> None:
    assert check_selector("latest") is None
    assert check_selector("1.0.0") == "1.0.0"
    assert check_name("a.b-c_D.1") == "a.b-c_D.1"
    for bad in ("a b", "a/b", "x" * 121, "", "a:b"):
        with pytest.raises(BadRequest):
            check_name(bad)


def test_decode_keeps_repeats_only_where_allowed() -> None:
    body = b'{"m": {"k": 1, "k": 2}}'
    decoded = decode(body, "application/json", repeatable_maps={("m",)})
    assert isinstance(decoded["m"], RepeatedKeys)
    assert decoded["m"]["k"] == 1
    assert decoded["m"].repeats == [("k", 2)]
    with pytest.raises(BadRequest, match="appears more than once"):
        decode(body, "application/json")


def test_decode_refuses_yaml_repeats_outside_concept_maps() -> None:
    with pytest.raises(BadRequest, match="appears more than once"):
        decode(b"a: 1\na: 2\n", "application/yaml")


def test_decode_bounds_depth_at_the_limit() -> None:
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert decode(nested.encode(), "application/json") is not None
    deeper = "[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2)
    for media_type in ("application/json", "application/yaml"):
        with pytest.raises(BadRequest, match="nested deeper"):
            decode(deeper.encode(), media_type)


def test_decode_refuses_non_json_values() -> None:
    for body, media_type in ((b"a: .nan", "application/yaml"), (b'{"a": Infinity}', "application/json")):
        with pytest.raises(BadRequest):
            decode(body, media_type)
    with pytest.raises(UnsupportedMediaType):
        decode(b"a: 1", "application/yaml", yaml_allowed=False)


def test_yaml_aliases_within_bounds_are_expanded() -> None:
    decoded = decode(b"base: &b {x: 1}\ncopy: *b\n", "application/yaml")
    assert decoded == {"base": {"x": 1}, "copy": {"x": 1}}


@pytest.mark.parametrize(
    ("accept", "yaml"),
    [
        ("application/yaml", True),
        ("text/yaml", True),
        ("application/json, application/yaml", False),
        ("application/yaml, application/json", True),
        ("application/yaml;q=0", False),
        ("*/*", False),
        ("", False),
        ("application/json;q=0.2, application/x-yaml;q=0.3", True),
    ],
)
def test_prefers_yaml(accept: str, yaml: bool) -> None:
    assert prefers_yaml(accept) is yaml


@pytest.mark.parametrize(
    ("method", "path", "status", "expected"),
    [
        ("GET", "/policytypes", 200, ["totalPolicyTypeGetCount", "policyTypeGetSuccessCount"]),
        ("POST", "/policytypes", 406, ["totalPolicyTypePostCount", "policyTypePostFailureCount"]),
        (
            "GET",
            "/policytypes/{policyTypeId}/versions/{policyTypeVersion}/policies",
            200,
            ["totalPolicyGetCount", "policyGetSuccessCount"],
        ),
        ("POST", "/policies", 200, ["totalPolicyPostCount", "policyPostSuccessCount"]),
        ("DELETE", "/policies/{policyId}/versions/{policyVersion}", 200, []),
        ("GET", "/healthcheck", 200, []),
    ],
)
def test_counters_for_routes(method: str, path: str, status: int, expected: list[str]) -> None:
    outcome = "apiCallSuccessCount" if status == 200 else "apiCallFailureCount"
    assert counters_for(method, API + path, status) == ["totalApiCallCount", outcome, *expected]


def test_uncounted_calls() -> None:
    assert counters_for("GET", API + "/nodetemplates", 200) == []
    assert counters_for("GET", API + "/statistics", 200) == []
    assert counters_for("POST", API + "/policies", 415) == []
    assert counters_for("GET", None, 404) == []
    assert counters_for("GET", "/health", 200) == []
