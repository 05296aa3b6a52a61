"""Policy types through real HTTP: create, list, versions, latest, delete and the version rules."""

from __future__ import annotations

import httpx

from .conftest import API, create_policies, create_type, error_of, policy, policy_type_template

SAMPLE = "test.policies.Sample"


def test_create_answers_200_with_the_normalised_type(client: httpx.Client) -> None:
    response = client.post(f"{API}/policytypes", json=policy_type_template())
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "ToscaServiceTemplateSimple"
    assert body["version"] == "1.0.0"
    created = body["policy_types"][SAMPLE]
    assert created["name"] == SAMPLE
    assert created["version"] == "1.0.0"
    assert created["properties"]["size"] == {
        "name": "size",
        "type": "integer",
        "type_version": "0.0.0",
        "required": False,
    }


def test_get_one_version_returns_the_type_with_ancestors_and_data_types(client: httpx.Client) -> None:
    data_types = {"test.datatypes.Limit": {"properties": {"max": {"type": "integer"}}}}
    create_type(
        client,
        "test.policies.Base",
        properties={"limit": {"type": "test.datatypes.Limit"}},
        data_types=data_types,
    )
    create_type(client, derived_from="test.policies.Base")
    body = client.get(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").json()
    assert set(body["policy_types"]) == {SAMPLE, "test.policies.Base"}
    assert set(body["data_types"]) == {"test.datatypes.Limit"}
    assert body["data_types"]["test.datatypes.Limit"]["version"] == "0.0.0"


def test_list_shows_each_name_once_at_its_latest_version(client: httpx.Client) -> None:
    for version in ("1.9.0", "1.10.0", "1.10.0-rc1"):
        create_type(client, version=version)
    listing = client.get(f"{API}/policytypes").json()["policy_types"]
    assert listing[SAMPLE]["version"] == "1.10.0"
    assert len(listing) == 37 + 1


def test_all_versions_of_one_type_are_all_returned(client: httpx.Client) -> None:
    for version in ("1.0.0", "2.0.0"):
        create_type(client, version=version)
    body = client.get(f"{API}/policytypes/{SAMPLE}").json()
    assert set(body["policy_types"]) == {f"{SAMPLE}:1.0.0", f"{SAMPLE}:2.0.0"}


def test_latest_uses_semantic_version_order(client: httpx.Client) -> None:
    for version in ("1.9.0", "1.10.0", "1.11.0-snapshot", "1.10.1-alpha"):
        create_type(client, version=version)
    body = client.get(f"{API}/policytypes/{SAMPLE}/versions/latest").json()
    assert body["policy_types"][SAMPLE]["version"] == "1.11.0-snapshot"
    create_type(client, version="1.11.0")
    body = client.get(f"{API}/policytypes/{SAMPLE}/versions/latest").json()
    assert body["policy_types"][SAMPLE]["version"] == "1.11.0"


def test_unknown_type_or_version_is_404(client: httpx.Client) -> None:
    response = client.get(f"{API}/policytypes/no.such.Type")
    assert response.status_code == 404
    assert error_of(response) == "policy types for no.such.Type:null do not exist"
    response = client.get(f"{API}/policytypes/no.such.Type/versions/latest")
    assert error_of(response) == "policy types for no.such.Type:null do not exist"
    create_type(client)
    response = client.get(f"{API}/policytypes/{SAMPLE}/versions/2.0.0")
    assert response.status_code == 404
    assert error_of(response) == f"policy types for {SAMPLE}:2.0.0 do not exist"


def test_bad_version_syntax_is_400(client: httpx.Client) -> None:
    response = client.get(f"{API}/policytypes/{SAMPLE}/versions/1.0")
    assert response.status_code == 400
    assert error_of(response).startswith(
        'parameter "version": value "1.0", does not match regular expression'
    )


def test_identical_repost_succeeds_and_changed_content_is_406(client: httpx.Client) -> None:
    create_type(client)
    create_type(client)
    changed = policy_type_template(properties={"size": {"type": "string"}})
    response = client.post(f"{API}/policytypes", json=changed)
    assert response.status_code == 406
    assert (
        error_of(response) == f'item "entity" value "{SAMPLE}:1.0.0" INVALID, does not equal existing entity'
    )
    stored = client.get(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").json()
    assert stored["policy_types"][SAMPLE]["properties"]["size"]["type"] == "integer"


def test_missing_version_is_406_and_nothing_is_stored(client: httpx.Client) -> None:
    template = policy_type_template()
    del template["policy_types"][SAMPLE]["version"]
    response = client.post(f"{API}/policytypes", json=template)
    assert response.status_code == 406
    assert error_of(response) == 'item "version" value "0.0.0" INVALID, is null'
    assert client.get(f"{API}/policytypes/{SAMPLE}").status_code == 404


def test_two_different_types_with_one_name_and_version_in_a_payload_is_406(client: httpx.Client) -> None:
    template = policy_type_template()
    template["policy_types"][f"{SAMPLE}:1.0.0"] = {"derived_from": "tosca.policies.Root", "properties": {}}
    response = client.post(f"{API}/policytypes", json=template)
    assert response.status_code == 406
    assert error_of(response) == f"duplicate policy type {SAMPLE}:1.0.0 found in the payload"
    assert client.get(f"{API}/policytypes/{SAMPLE}").status_code == 404


def test_repeated_json_key_with_other_content_is_the_duplicate_rule(client: httpx.Client) -> None:
    text = (
        '{"policy_types": {"a.B": {"version": "1.0.0", "properties": {}},'
        ' "a.B": {"version": "1.0.0", "description": "other", "properties": {}}}}'
    )
    response = client.post(f"{API}/policytypes", content=text, headers={"Content-Type": "application/json"})
    assert response.status_code == 406
    assert error_of(response) == "duplicate policy type a.B:1.0.0 found in the payload"


def test_identical_repeats_in_a_payload_collapse(client: httpx.Client) -> None:
    template = policy_type_template()
    template["policy_types"][f"{SAMPLE}:1.0.0"] = dict(template["policy_types"][SAMPLE])
    response = client.post(f"{API}/policytypes", json=template)
    assert response.status_code == 200, response.text
    assert list(response.json()["policy_types"]) == [SAMPLE]


def test_parent_must_exist_in_store_or_payload(client: httpx.Client) -> None:
    response = client.post(
        f"{API}/policytypes", json=policy_type_template(derived_from="test.policies.Missing")
    )
    assert response.status_code == 406
    assert error_of(response) == 'item "parent" value "test.policies.Missing:0.0.0" INVALID, not found'
    template = policy_type_template(derived_from="test.policies.Parent")
    template["policy_types"]["test.policies.Parent"] = {
        "derived_from": "tosca.policies.Root",
        "version": "1.0.0",
    }
    assert client.post(f"{API}/policytypes", json=template).status_code == 200


def test_versioned_parent_must_match_exactly(client: httpx.Client) -> None:
    create_type(client, "test.policies.Parent")
    response = client.post(
        f"{API}/policytypes", json=policy_type_template(derived_from="test.policies.Parent:2.0.0")
    )
    assert response.status_code == 406
    assert error_of(response) == 'item "parent" value "test.policies.Parent:2.0.0" INVALID, not found'


def test_cyclic_derivation_is_refused(client: httpx.Client) -> None:
    template = policy_type_template("test.policies.A", derived_from="test.policies.B")
    template["policy_types"]["test.policies.B"] = {"derived_from": "test.policies.A", "version": "1.0.0"}
    response = client.post(f"{API}/policytypes", json=template)
    assert response.status_code == 406
    assert 'item "entity type" value "test.policies.A:1.0.0" INVALID, ancestor of itself' in error_of(
        response
    )
    assert client.get(f"{API}/policytypes/test.policies.A").status_code == 404


def test_self_derivation_is_refused(client: httpx.Client) -> None:
    response = client.post(f"{API}/policytypes", json=policy_type_template(derived_from=SAMPLE))
    assert response.status_code == 406
    assert error_of(response) == f'item "entity type" value "{SAMPLE}:1.0.0" INVALID, ancestor of itself'


def test_unknown_property_data_type_is_refused(client: httpx.Client) -> None:
    properties = {
        "a": {"type": "test.datatypes.Nope"},
        "b": {"type": "list", "entry_schema": {"type": "nope.Two"}},
    }
    response = client.post(f"{API}/policytypes", json=policy_type_template(properties=properties))
    assert response.status_code == 406
    assert response.json()["details"] == [
        'item "data type" value "test.datatypes.Nope:0.0.0" INVALID, not found',
        'item "data type" value "nope.Two:0.0.0" INVALID, not found',
    ]


def test_data_types_in_the_template_are_stored_and_shared(client: httpx.Client) -> None:
    data_types = {"test.datatypes.Shared": {"version": "1.0.0", "properties": {"x": {"type": "string"}}}}
    properties = {"shared": {"type": "test.datatypes.Shared", "type_version": "1.0.0"}}
    create_type(client, "test.policies.First", properties=properties, data_types=data_types)
    create_type(client, "test.policies.Second", properties=properties)
    body = client.get(f"{API}/policytypes/test.policies.Second/versions/1.0.0").json()
    assert body["data_types"]["test.datatypes.Shared"]["properties"]["x"]["type"] == "string"


def test_delete_removes_exactly_one_version(client: httpx.Client) -> None:
    create_type(client, version="1.0.0")
    create_type(client, version="2.0.0")
    response = client.delete(f"{API}/policytypes/{SAMPLE}/versions/1.0.0")
    assert response.status_code == 200
    assert response.json()["policy_types"][SAMPLE]["version"] == "1.0.0"
    assert "topology_template" not in response.json()
    remaining = client.get(f"{API}/policytypes/{SAMPLE}").json()["policy_types"]
    assert list(remaining) == [SAMPLE]
    assert remaining[SAMPLE]["version"] == "2.0.0"
    again = client.delete(f"{API}/policytypes/{SAMPLE}/versions/1.0.0")
    assert again.status_code == 404
    assert error_of(again) == f"policy type {SAMPLE}:1.0.0 not found"


def test_delete_of_a_type_with_children_is_409(client: httpx.Client) -> None:
    create_type(client, "test.policies.Parent")
    create_type(client, derived_from="test.policies.Parent")
    response = client.delete(f"{API}/policytypes/test.policies.Parent/versions/1.0.0")
    assert response.status_code == 409
    assert error_of(response) == (
        f"policy type test.policies.Parent:1.0.0 is in use, it is referenced in policy type {SAMPLE}:1.0.0"
    )


def test_delete_of_a_type_used_by_policies_is_409(client: httpx.Client) -> None:
    create_type(client)
    create_policies(client, policy())
    response = client.delete(f"{API}/policytypes/{SAMPLE}/versions/1.0.0")
    assert response.status_code == 409
    assert error_of(response) == (
        f"policy type {SAMPLE}:1.0.0 is in use, it is referenced in policy test.policy:1.0.0"
    )
    assert client.delete(f"{API}/policies/test.policy/versions/1.0.0").status_code == 200
    assert client.delete(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").status_code == 200


def test_a_version_deriving_from_an_older_version_of_its_name_can_be_deleted(client: httpx.Client) -> None:
    create_type(client)
    create_type(client, version="2.0.0", derived_from=f"{SAMPLE}:1.0.0")
    assert client.delete(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").status_code == 409
    assert client.delete(f"{API}/policytypes/{SAMPLE}/versions/2.0.0").status_code == 200
    assert client.delete(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").status_code == 200


def test_a_template_with_more_entities_than_one_statement_binds(client: httpx.Client) -> None:
    string_property = {"properties": {"v": {"type": "string"}}}
    data_types = {f"test.datatypes.D{index}": string_property for index in range(1200)}
    properties = {f"p{index}": {"type": f"test.datatypes.D{index}"} for index in range(0, 1200, 7)}
    template = policy_type_template(properties=properties, data_types=data_types)
    assert client.post(f"{API}/policytypes", json=template).status_code == 200
    assert client.post(f"{API}/policytypes", json=template).status_code == 200
    body = client.get(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").json()
    assert len(body["data_types"]) == len(properties)


def test_a_refused_template_stores_none_of_its_entities(client: httpx.Client) -> None:
    data_types = {"test.datatypes.Kept": {"properties": {"v": {"type": "string"}}}}
    refused = policy_type_template(derived_from="test.policies.Missing", data_types=data_types)
    assert client.post(f"{API}/policytypes", json=refused).status_code == 406
    uses_it = policy_type_template("test.policies.User", properties={"k": {"type": "test.datatypes.Kept"}})
    response = client.post(f"{API}/policytypes", json=uses_it)
    assert response.status_code == 406
    assert error_of(response) == 'item "data type" value "test.datatypes.Kept:0.0.0" INVALID, not found'


def test_targets_and_triggers_are_kept_and_returned(client: httpx.Client) -> None:
    """Spec 2.4: a policy type's targets (and triggers) are returned on GET."""
    template = policy_type_template()
    template["policy_types"][SAMPLE]["targets"] = ["tosca.nodes.Compute", "example.groups.Edge"]
    template["policy_types"][SAMPLE]["triggers"] = {"overload": {"event": "cpu.high"}}
    posted = client.post(f"{API}/policytypes", json=template)
    assert posted.status_code == 200, posted.text
    assert posted.json()["policy_types"][SAMPLE]["targets"] == ["tosca.nodes.Compute", "example.groups.Edge"]
    stored = client.get(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").json()["policy_types"][SAMPLE]
    assert stored["targets"] == ["tosca.nodes.Compute", "example.groups.Edge"]
    assert stored["triggers"] == {"overload": {"event": "cpu.high"}}
    listed = client.get(f"{API}/policytypes", headers={"Accept": "application/yaml"})
    assert "tosca.nodes.Compute" in listed.text


def test_targets_must_be_a_list_of_names(client: httpx.Client) -> None:
    template = policy_type_template()
    template["policy_types"][SAMPLE]["targets"] = "tosca.nodes.Compute"
    response = client.post(f"{API}/policytypes", json=template)
    assert response.status_code == 400
    assert "is not a list" in error_of(response)
    template["policy_types"][SAMPLE]["targets"] = ["not a name!"]
    assert client.post(f"{API}/policytypes", json=template).status_code == 400
