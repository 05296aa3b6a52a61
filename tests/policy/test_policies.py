"""Policies through real HTTP: every GET form, BARE and REFERENCED, creates, rules and deletes."""

from __future__ import annotations

import httpx
import pytest

from .conftest import API, create_policies, create_type, error_of, policy, policy_names, policy_template

SAMPLE = "test.policies.Sample"
TYPED = f"{API}/policytypes/{SAMPLE}/versions/1.0.0/policies"


@pytest.fixture
def typed(client: httpx.Client) -> httpx.Client:
    """A client of a service that has the Sample policy type."""
    create_type(client)
    return client


def test_create_through_policies_sets_policy_id_and_version(typed: httpx.Client) -> None:
    response = create_policies(typed, policy(metadata={"policy-id": "forged", "policy-version": "9.9.9"}))
    created = response.json()["topology_template"]["policies"][0]["test.policy"]
    assert created["metadata"] == {"policy-id": "test.policy", "policy-version": "1.0.0"}
    assert created["name"] == "test.policy"
    stored = typed.get(f"{API}/policies/test.policy/versions/1.0.0").json()
    assert stored["topology_template"]["policies"][0]["test.policy"]["metadata"]["policy-id"] == "test.policy"


def test_several_policies_in_one_template(typed: httpx.Client) -> None:
    create_policies(typed, policy("p.one"), policy("p.two"), policy("p.one", "2.0.0"))
    assert policy_names(typed.get(f"{API}/policies").json()) == [
        "SDNC_Policy.PLATFORM_NF_NAMING_TIMESTAMP:1.0.0",
        "p.one:1.0.0",
        "p.one:2.0.0",
        "p.two:1.0.0",
    ]


def test_create_under_the_type_path(typed: httpx.Client) -> None:
    response = typed.post(TYPED, json=policy_template(policy()))
    assert response.status_code == 200
    assert policy_names(response.json()) == ["test.policy:1.0.0"]


def test_type_path_refuses_a_policy_of_another_type(typed: httpx.Client) -> None:
    create_type(typed, "test.policies.Other")
    response = typed.post(TYPED, json=policy_template(policy(type_name="test.policies.Other")))
    assert response.status_code == 406
    assert error_of(response) == f"policy test.policy:1.0.0 is not of policy type {SAMPLE}:1.0.0"
    assert typed.get(f"{API}/policies/test.policy/versions/1.0.0").status_code == 404


def test_policy_type_must_exist(typed: httpx.Client) -> None:
    response = typed.post(f"{API}/policies", json=policy_template(policy(type_version="3.0.0")))
    assert response.status_code == 406
    assert error_of(response) == f'item "policy type" value "{SAMPLE}:3.0.0" INVALID, not found'


def test_type_and_type_version_are_required(typed: httpx.Client) -> None:
    no_type = policy()
    del no_type["test.policy"]["type"]
    response = typed.post(f"{API}/policies", json=policy_template(no_type))
    assert response.status_code == 400
    assert (
        error_of(response)
        == "Type not specified, the type of this TOSCA entity must be specified in the type field"
    )
    no_version = policy()
    del no_version["test.policy"]["type_version"]
    response = typed.post(f"{API}/policies", json=policy_template(no_version))
    assert response.status_code == 400
    assert error_of(response).startswith("Version not specified, the version of this TOSCA entity")


def test_policy_version_rules(typed: httpx.Client) -> None:
    create_policies(typed, policy())
    create_policies(typed, policy())  # identical re-post
    changed = typed.post(f"{API}/policies", json=policy_template(policy(properties={"size": 2})))
    assert changed.status_code == 406
    assert (
        error_of(changed) == 'item "entity" value "test.policy:1.0.0" INVALID, does not equal existing entity'
    )
    versionless = policy()
    del versionless["test.policy"]["version"]
    response = typed.post(f"{API}/policies", json=policy_template(versionless))
    assert response.status_code == 406
    assert error_of(response) == 'item "version" value "0.0.0" INVALID, is null'
    twice = typed.post(
        f"{API}/policies", json=policy_template(policy("p.x"), policy("p.x", properties={"size": 5}))
    )
    assert twice.status_code == 406
    assert error_of(twice) == "duplicate policy p.x:1.0.0 found in the payload"


def test_missing_sections_are_400(typed: httpx.Client) -> None:
    response = typed.post(f"{API}/policies", json={"tosca_definitions_version": "tosca_simple_yaml_1_1_0"})
    assert response.status_code == 400
    assert error_of(response) == "topology template not specified on service template"
    response = typed.post(f"{API}/policies", json={"topology_template": {"description": "none"}})
    assert error_of(response) == "no policies specified on topology template of service template"
    response = typed.post(f"{API}/policies", json={"topology_template": {"policies": []}})
    assert error_of(response) == "An incoming list of concepts must have at least one entry"


def test_get_forms_under_the_type(typed: httpx.Client) -> None:
    create_policies(typed, policy("p.a"), policy("p.a", "1.10.0"), policy("p.a", "1.9.0"), policy("p.b"))
    assert policy_names(typed.get(TYPED).json()) == ["p.a:1.0.0", "p.a:1.9.0", "p.a:1.10.0", "p.b:1.0.0"]
    assert policy_names(typed.get(f"{TYPED}/p.a").json()) == ["p.a:1.0.0", "p.a:1.9.0", "p.a:1.10.0"]
    assert policy_names(typed.get(f"{TYPED}/p.a/versions/1.9.0").json()) == ["p.a:1.9.0"]
    assert policy_names(typed.get(f"{TYPED}/p.a/versions/latest").json()) == ["p.a:1.10.0"]
    assert policy_names(typed.get(f"{API}/policies/p.a/versions/latest").json()) == ["p.a:1.10.0"]


def test_get_not_found_messages(typed: httpx.Client) -> None:
    response = typed.get(TYPED)
    assert response.status_code == 404
    assert error_of(response) == (
        "policies for filter ToscaTypedEntityFilter(name=null, version=null, versionPrefix=null, "
        f"type={SAMPLE}, typeVersion=1.0.0) do not exist"
    )
    assert error_of(typed.get(f"{TYPED}/p.none")) == "policies for p.none:null do not exist"
    assert error_of(typed.get(f"{TYPED}/p.none/versions/1.0.0")) == "policies for p.none:1.0.0 do not exist"
    assert error_of(typed.get(f"{TYPED}/p.none/versions/latest")) == "policies for p.none:null do not exist"
    assert (
        error_of(typed.get(f"{API}/policies/p.none/versions/2.0.0"))
        == "policies for p.none:2.0.0 do not exist"
    )


def test_no_policies_at_all_is_404(typed: httpx.Client) -> None:
    assert (
        typed.delete(f"{API}/policies/SDNC_Policy.PLATFORM_NF_NAMING_TIMESTAMP/versions/1.0.0").status_code
        == 200
    )
    response = typed.get(f"{API}/policies")
    assert response.status_code == 404
    assert response.json()["error"] == "No policies found"
    assert response.json()["details"] == ["No policies found"]


def test_referenced_mode_adds_types_ancestors_and_data_types(typed: httpx.Client) -> None:
    data_types = {"test.datatypes.Limit": {"properties": {"max": {"type": "integer"}}}}
    create_type(
        typed,
        "test.policies.Child",
        derived_from=SAMPLE,
        properties={"limit": {"type": "test.datatypes.Limit"}},
        data_types=data_types,
    )
    create_policies(typed, policy(type_name="test.policies.Child", properties={"limit": {"max": 3}}))
    bare = typed.get(f"{API}/policies/test.policy/versions/1.0.0").json()
    assert "policy_types" not in bare
    assert "data_types" not in bare
    for mode in ("REFERENCED", "referenced"):
        referenced = typed.get(f"{API}/policies/test.policy/versions/1.0.0", params={"mode": mode}).json()
        assert set(referenced["policy_types"]) == {"test.policies.Child", SAMPLE}
        assert set(referenced["data_types"]) == {"test.datatypes.Limit"}
        assert policy_names(referenced) == ["test.policy:1.0.0"]
    unknown_mode = typed.get(
        f"{API}/policies/test.policy/versions/1.0.0", params={"mode": "SOMETHING"}
    ).json()
    assert "policy_types" not in unknown_mode


def test_delete_through_policies(typed: httpx.Client) -> None:
    create_policies(typed, policy(), policy(version="2.0.0"))
    response = typed.delete(f"{API}/policies/test.policy/versions/1.0.0")
    assert response.status_code == 200
    assert policy_names(response.json()) == ["test.policy:1.0.0"]
    assert "policy_types" not in response.json()
    again = typed.delete(f"{API}/policies/test.policy/versions/1.0.0")
    assert again.status_code == 404
    assert error_of(again) == "policy test.policy:1.0.0 not found"
    assert policy_names(typed.get(f"{API}/policies/test.policy/versions/latest").json()) == [
        "test.policy:2.0.0"
    ]


def test_delete_under_the_type_requires_that_type(typed: httpx.Client) -> None:
    create_type(typed, "test.policies.Other")
    create_policies(typed, policy())
    wrong_type = typed.delete(
        f"{API}/policytypes/test.policies.Other/versions/1.0.0/policies/test.policy/versions/1.0.0"
    )
    assert wrong_type.status_code == 404
    assert error_of(wrong_type) == "policy test.policy:1.0.0 not found"
    assert typed.delete(f"{TYPED}/test.policy/versions/1.0.0").status_code == 200


def test_delete_needs_an_exact_version(typed: httpx.Client) -> None:
    create_policies(typed, policy())
    response = typed.delete(f"{API}/policies/test.policy/versions/latest")
    assert response.status_code == 400
    assert typed.get(f"{API}/policies/test.policy/versions/1.0.0").status_code == 200


def test_metadata_set_reference_is_kept_without_quotes(typed: httpx.Client) -> None:
    metadata = {"metadataSetName": '"ms.one"', "metadataSetVersion": "1.0.0"}
    created = create_policies(typed, policy(metadata=metadata)).json()
    stored_metadata = created["topology_template"]["policies"][0]["test.policy"]["metadata"]
    assert stored_metadata == {
        "metadataSetName": "ms.one",
        "metadataSetVersion": "1.0.0",
        "policy-id": "test.policy",
        "policy-version": "1.0.0",
    }
