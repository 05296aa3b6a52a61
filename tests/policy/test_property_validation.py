"""Policy property values against their type and data types (issue 17), through real HTTP.

A policy whose properties do not fit its type is 406 with every problem and its property path;
the preloaded policy and real policies of the preloaded types are accepted.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from .conftest import API, create_type, policy, policy_template, policy_type_template

EXAMPLES = Path(__file__).parent / "examples" / "policies_of_preloaded_types.yaml"
EXAMPLE_POLICIES: list[dict[str, Any]] = yaml.safe_load(EXAMPLES.read_text(encoding="utf-8"))[
    "topology_template"
]["policies"]

DATA_TYPES = {
    "check.datatypes.Limit": {
        "derived_from": "tosca.datatypes.Root",
        "properties": {
            "max": {"type": "integer", "required": True, "constraints": [{"greater_than": 0}]},
            "unit": {"type": "string", "constraints": [{"valid_values": ["req", "byte"]}]},
            "window": {"type": "check.datatypes.Window"},
        },
    },
    "check.datatypes.Window": {
        "derived_from": "tosca.datatypes.Root",
        "properties": {
            "size": {"type": "scalar-unit.time", "required": True, "constraints": [{"less_or_equal": "1 h"}]}
        },
    },
    "check.datatypes.BurstLimit": {
        "derived_from": "check.datatypes.Limit",
        "properties": {"burst": {"type": "integer", "required": True}},
    },
}

PROPERTIES = {
    "name": {"type": "string", "required": True, "constraints": [{"pattern": "[a-z][a-z0-9-]*"}]},
    "count": {"type": "integer", "constraints": [{"in_range": [1, 10]}]},
    "ratio": {"type": "float", "constraints": [{"less_than": 1}]},
    "enabled": {"type": "boolean"},
    "level": {"type": "string", "constraints": [{"valid_values": ["low", "high"]}]},
    "mode": {"type": "string", "constraints": [{"equal": "strict"}]},
    "tags": {
        "type": "list",
        "constraints": [{"max_length": 3}],
        "entry_schema": {"type": "string", "constraints": [{"min_length": 2}]},
    },
    "quotas": {"type": "map", "entry_schema": {"type": "integer", "constraints": [{"greater_or_equal": 0}]}},
    "code": {"type": "string", "constraints": [{"length": 4}]},
    "since": {"type": "timestamp"},
    "memory": {"type": "scalar-unit.size", "constraints": [{"in_range": ["1 MB", "2 GiB"]}]},
    "limit": {"type": "check.datatypes.Limit"},
    "limits": {"type": "list", "entry_schema": {"type": "check.datatypes.BurstLimit"}},
}

VALID = {
    "name": "edge-1",
    "count": 10,
    "ratio": 0.5,
    "enabled": True,
    "level": "high",
    "mode": "strict",
    "tags": ["ab", "cd"],
    "quotas": {"a": 0, "b": 7},
    "code": "AB12",
    "since": "2024-05-01T10:00:00Z",
    "memory": "512 MB",
    "limit": {"max": 3, "unit": "req", "window": {"size": "30 m"}},
    "limits": [{"max": 1, "burst": 2}],
}

INVALID = {
    "name": "Edge 1",
    "count": 11,
    "ratio": "half",
    "enabled": 1,
    "level": "medium",
    "mode": "loose",
    "tags": ["a", "bc", "de", "fg"],
    "quotas": {"a": -1, "b": "7"},
    "code": "ABC",
    "since": "yesterday",
    "memory": "3 GiB",
    "limit": {"max": 0, "unit": "km", "window": {"size": "2 h"}},
    "limits": [{"max": 1}, {"max": "x", "burst": 1}, "oops"],
}

EXPECTED_LINES = [
    'item "properties.name" value "Edge 1" INVALID, does not match the pattern [a-z][a-z0-9-]*',
    'item "properties.count" value "11" INVALID, is not in the range [1,10]',
    'item "properties.ratio" value "half" INVALID, is not a number',
    'item "properties.enabled" value "1" INVALID, is not a boolean',
    'item "properties.level" value "medium" INVALID, is not one of ["low","high"]',
    'item "properties.mode" value "loose" INVALID, is not equal to strict',
    'item "properties.tags" value "["a","bc","de","fg"]" INVALID, has length 4, the maximum is 3',
    'item "properties.tags[0]" value "a" INVALID, has length 1, the minimum is 2',
    'item "properties.quotas.a" value "-1" INVALID, is not greater than or equal to 0',
    'item "properties.quotas.b" value "7" INVALID, is not an integer',
    'item "properties.code" value "ABC" INVALID, has length 3, expected 4',
    'item "properties.since" value "yesterday" INVALID, is not a timestamp',
    'item "properties.memory" value "3 GiB" INVALID, is not in the range ["1 MB","2 GiB"]',
    'item "properties.limit.max" value "0" INVALID, is not greater than 0',
    'item "properties.limit.unit" value "km" INVALID, is not one of ["req","byte"]',
    'item "properties.limit.window.size" value "2 h" INVALID, is not less than or equal to 1 h',
    'item "properties.limits[0].burst" value "null" INVALID, is required but not present',
    'item "properties.limits[1].max" value "x" INVALID, is not an integer',
    'item "properties.limits[2]" value "oops" INVALID, is not a map (data type check.datatypes.BurstLimit)',
]


@pytest.fixture
def client(shared_client: httpx.Client) -> httpx.Client:
    return shared_client


def checked_type(client: httpx.Client, name: str) -> None:
    template = policy_type_template(name, properties=PROPERTIES, data_types=DATA_TYPES)
    response = client.post(f"{API}/policytypes", json=template)
    assert response.status_code == 200, response.text


def test_a_policy_that_fits_its_type_is_accepted(client: httpx.Client) -> None:
    checked_type(client, "check.policies.Fits")
    posted = client.post(
        f"{API}/policies",
        json=policy_template(policy("check.fits", type_name="check.policies.Fits", properties=VALID)),
    )
    assert posted.status_code == 200, posted.text
    # JSON does not tell 3 from 3.0, so an integral float is an integer.
    again = dict(VALID, count=3.0)
    posted = client.post(
        f"{API}/policies",
        json=policy_template(policy("check.fits.float", type_name="check.policies.Fits", properties=again)),
    )
    assert posted.status_code == 200, posted.text


def test_every_problem_is_listed_with_its_property_path(client: httpx.Client) -> None:
    checked_type(client, "check.policies.Listed")
    template = policy_template(policy("check.listed", type_name="check.policies.Listed", properties=INVALID))
    response = client.post(f"{API}/policies", json=template)
    assert response.status_code == 406, response.text
    body = response.json()
    assert body["code"] == "NOT_ACCEPTABLE"
    assert body["details"][0] == '"check.listed:1.0.0" INVALID, item has status INVALID'
    assert [line.strip() for line in body["details"][1:]] == EXPECTED_LINES
    assert all(line.startswith("  item ") for line in body["details"][1:])
    assert body["error"] == "".join(line + "\n" for line in body["details"])
    # Nothing was stored.
    assert client.get(f"{API}/policies/check.listed/versions/1.0.0").status_code == 404


def test_required_properties_come_from_the_whole_type_hierarchy(client: httpx.Client) -> None:
    create_type(client, "check.policies.Parent", properties={"owner": {"type": "string", "required": True}})
    create_type(
        client,
        "check.policies.Child",
        derived_from="check.policies.Parent",
        properties={"size": {"type": "integer", "required": True, "default": 1}},
    )
    template = policy_template(policy("check.child", type_name="check.policies.Child", properties={}))
    response = client.post(f"{API}/policies", json=template)
    assert response.status_code == 406
    # size has a default, so only the parent's owner is missing.
    assert response.json()["details"][1:] == [
        '  item "properties.owner" value "null" INVALID, is required but not present'
    ]
    template = policy_template(
        policy("check.child", type_name="check.policies.Child", properties={"owner": "ops"})
    )
    assert client.post(f"{API}/policies", json=template).status_code == 200


def test_a_child_type_overrides_its_parents_definition(client: httpx.Client) -> None:
    create_type(client, "check.policies.Loose", properties={"size": {"type": "string"}})
    create_type(
        client,
        "check.policies.Tight",
        derived_from="check.policies.Loose",
        properties={"size": {"type": "integer"}},
    )
    bad = policy_template(policy("check.tight", type_name="check.policies.Tight", properties={"size": "big"}))
    response = client.post(f"{API}/policies", json=bad)
    assert response.status_code == 406
    assert 'item "properties.size" value "big" INVALID, is not an integer' in response.json()["error"]


def test_every_policy_of_a_payload_is_reported(client: httpx.Client) -> None:
    create_type(client, "check.policies.Many", properties={"size": {"type": "integer", "required": True}})
    template = policy_template(
        policy("check.many.a", type_name="check.policies.Many", properties={"size": "one"}),
        policy("check.many.b", type_name="check.policies.Many", properties={"size": 2}),
        policy("check.many.c", type_name="check.policies.Many", properties={"other": 1}),
    )
    response = client.post(f"{API}/policies", json=template)
    assert response.status_code == 406
    assert response.json()["details"] == [
        '"check.many.a:1.0.0" INVALID, item has status INVALID',
        '  item "properties.size" value "one" INVALID, is not an integer',
        '"check.many.c:1.0.0" INVALID, item has status INVALID',
        '  item "properties.size" value "null" INVALID, is required but not present',
    ]
    assert client.get(f"{API}/policies/check.many.b/versions/1.0.0").status_code == 404


def test_type_scoped_posts_and_yaml_bodies_are_validated_too(client: httpx.Client) -> None:
    create_type(client, "check.policies.Scoped", properties={"level": {"type": "integer"}})
    template = policy_template(
        policy("check.scoped", type_name="check.policies.Scoped", properties={"level": "x"})
    )
    response = client.post(
        f"{API}/policytypes/check.policies.Scoped/versions/1.0.0/policies",
        content=yaml.safe_dump(template),
        headers={"Content-Type": "application/yaml", "Accept": "application/yaml"},
    )
    assert response.status_code == 406
    error = yaml.safe_load(response.text)
    assert error["details"][1] == '  item "properties.level" value "x" INVALID, is not an integer'


def test_a_policy_naming_a_metadata_set_may_leave_required_properties_out(client: httpx.Client) -> None:
    """Spec 2.4: its implementation data may live in the metadata set instead."""
    create_type(client, "check.policies.WithSet", properties={"rules": {"type": "string", "required": True}})
    metadata = {"metadataSetName": "check.ms", "metadataSetVersion": "1.0.0"}
    template = policy_template(
        policy("check.withset", type_name="check.policies.WithSet", properties={}, metadata=metadata)
    )
    assert client.post(f"{API}/policies", json=template).status_code == 200
    # Values that are given are still checked.
    template = policy_template(
        policy(
            "check.withset.bad",
            type_name="check.policies.WithSet",
            properties={"rules": 5},
            metadata=metadata,
        )
    )
    assert client.post(f"{API}/policies", json=template).status_code == 406


def test_undeclared_properties_and_nulls_are_accepted(client: httpx.Client) -> None:
    create_type(client, "check.policies.Open", properties={"size": {"type": "integer"}})
    template = policy_template(
        policy(
            "check.open", type_name="check.policies.Open", properties={"size": None, "extra": {"any": [1]}}
        )
    )
    assert client.post(f"{API}/policies", json=template).status_code == 200


def test_booleans_are_not_numbers_and_numbers_are_not_strings(client: httpx.Client) -> None:
    create_type(
        client,
        "check.policies.Strict",
        properties={"count": {"type": "integer"}, "label": {"type": "string"}, "flag": {"type": "boolean"}},
    )
    template = policy_template(
        policy(
            "check.strict",
            type_name="check.policies.Strict",
            properties={"count": True, "label": 5, "flag": "true"},
        )
    )
    response = client.post(f"{API}/policies", json=template)
    assert response.status_code == 406
    assert [line.strip() for line in response.json()["details"][1:]] == [
        'item "properties.count" value "true" INVALID, is not an integer',
        'item "properties.label" value "5" INVALID, is not a string',
        'item "properties.flag" value "true" INVALID, is not a boolean',
    ]


def test_a_type_with_a_malformed_constraint_is_400(client: httpx.Client) -> None:
    for constraint in ({"pattern": "(unclosed"}, {"min_length": -1}, {"max_length": "3"}):
        template = policy_type_template(
            "check.policies.BadConstraint", properties={"p": {"type": "string", "constraints": [constraint]}}
        )
        response = client.post(f"{API}/policytypes", json=template)
        assert response.status_code == 400, (constraint, response.text)


def test_length_and_pattern_constraints_are_kept_on_the_type(client: httpx.Client) -> None:
    properties = {"p": {"type": "string", "constraints": [{"pattern": "a+"}, {"min_length": 1}]}}
    create_type(client, "check.policies.Kept", properties=properties)
    stored = client.get(f"{API}/policytypes/check.policies.Kept/versions/1.0.0").json()
    assert stored["policy_types"]["check.policies.Kept"]["properties"]["p"]["constraints"] == [
        {"pattern": "a+"},
        {"min_length": 1},
    ]


def test_every_preloaded_policy_passes_validation(client: httpx.Client) -> None:
    """Each preloaded policy, posted again under a new version, is validated and accepted."""
    listing = client.get(f"{API}/policies").json()["topology_template"]["policies"]
    preloaded = [entry for entry in listing if not any(name.startswith("check.") for name in entry)]
    assert preloaded
    for entry in preloaded:
        ((name, body),) = entry.items()
        again = copy.deepcopy(body)
        again["version"] = "9.0.0"
        response = client.post(f"{API}/policies", json=policy_template({name: again}))
        assert response.status_code == 200, response.text


@pytest.mark.parametrize("example", EXAMPLE_POLICIES, ids=lambda example: next(iter(example)))
def test_real_policies_of_the_preloaded_types_are_accepted(
    client: httpx.Client, example: dict[str, Any]
) -> None:
    response = client.post(f"{API}/policies", json=policy_template(example))
    assert response.status_code == 200, response.text


def test_a_broken_copy_of_a_real_policy_is_refused(client: httpx.Client) -> None:
    """The examples above are accepted because they fit, not because nothing is checked."""
    (tca,) = [example for example in EXAMPLE_POLICIES if "example.tca.v1" in example]
    broken = copy.deepcopy(tca)
    body = broken["example.tca.v1"]
    body["version"] = "2.0.0"
    threshold = body["properties"]["tca.policy"]["metricsPerEventName"][0]["thresholds"][1]
    threshold["severity"] = "SEVERE"
    del threshold["thresholdValue"]
    response = client.post(f"{API}/policies", json=policy_template(broken))
    assert response.status_code == 406
    severities = '["CRITICAL","MAJOR","MINOR","WARNING","NORMAL"]'
    path = "properties['tca.policy'].metricsPerEventName[0].thresholds[1]"
    assert [line.strip() for line in response.json()["details"][1:]] == [
        f'item "{path}.severity" value "SEVERE" INVALID, is not one of {severities}',
        f'item "{path}.thresholdValue" value "null" INVALID, is required but not present',
    ]
