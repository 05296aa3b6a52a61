"""Node templates (metadata sets) through real HTTP: create, update, list, get, delete, in-use rule."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .conftest import API, create_policies, create_type, error_of, policy

NODE_TYPE = "org.platform.nodetypes.policy.MetadataSet"


def node_templates(
    *names: str, version: str = "1.0.0", data: str = "v1", with_type: bool = True
) -> dict[str, Any]:
    template: dict[str, Any] = {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "topology_template": {
            "node_templates": {
                name: {
                    "version": version,
                    "type": NODE_TYPE,
                    "type_version": "1.0.0",
                    "description": "metadata set",
                    "metadata": {"policyModel": {"data": data}},
                }
                for name in names
            }
        },
    }
    if with_type:
        template["node_types"] = {NODE_TYPE: {"version": "1.0.0", "derived_from": "tosca.nodetypes.Root"}}
    return template


@pytest.fixture
def stored(client: httpx.Client) -> httpx.Client:
    response = client.post(f"{API}/nodetemplates", json=node_templates("ms.one", "ms.two"))
    assert response.status_code == 200, response.text
    return client


def test_create_echoes_the_templates(client: httpx.Client) -> None:
    response = client.post(f"{API}/nodetemplates", json=node_templates("ms.one"))
    assert response.status_code == 200
    created = response.json()["topology_template"]["node_templates"]["ms.one"]
    assert created["type"] == NODE_TYPE
    assert created["metadata"] == {"policyModel": {"data": "v1"}}


def test_list_and_get(stored: httpx.Client) -> None:
    listed = stored.get(f"{API}/nodetemplates").json()
    assert [item["name"] for item in listed] == ["ms.one", "ms.two"]
    assert [item["name"] for item in stored.get(f"{API}/nodetemplates/ms.one/versions/1.0.0").json()] == [
        "ms.one"
    ]
    assert stored.get(f"{API}/nodetemplates/ms.one/versions/2.0.0").json() == []


def test_empty_list(client: httpx.Client) -> None:
    response = client.get(f"{API}/nodetemplates")
    assert response.status_code == 200
    assert response.json() == []


def test_node_type_must_exist(client: httpx.Client) -> None:
    response = client.post(f"{API}/nodetemplates", json=node_templates("ms.one", with_type=False))
    assert response.status_code == 406
    assert error_of(response) == (
        f"NODE_TYPE PfConceptKey(name={NODE_TYPE}, version=1.0.0) "
        "for toscaNodeTemplate ms.one:1.0.0 does not exist"
    )


def test_missing_section_and_type_version_are_400(client: httpx.Client) -> None:
    response = client.post(
        f"{API}/nodetemplates", json={"tosca_definitions_version": "tosca_simple_yaml_1_1_0"}
    )
    assert response.status_code == 400
    assert error_of(response) == "node templates not present on the service template"
    template = node_templates("ms.one")
    del template["topology_template"]["node_templates"]["ms.one"]["type_version"]
    response = client.post(f"{API}/nodetemplates", json=template)
    assert response.status_code == 400
    assert error_of(response).startswith("Version not specified")


def test_changed_content_is_406(stored: httpx.Client) -> None:
    response = stored.post(f"{API}/nodetemplates", json=node_templates("ms.one", data="v2"))
    assert response.status_code == 406
    assert error_of(response) == 'item "entity" value "ms.one:1.0.0" INVALID, does not equal existing entity'


def test_json_only(client: httpx.Client) -> None:
    response = client.post(
        f"{API}/nodetemplates", content=b"a: 1", headers={"Content-Type": "application/yaml"}
    )
    assert response.status_code == 415
    assert response.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"


def test_update_replaces_stored_templates(stored: httpx.Client) -> None:
    response = stored.put(f"{API}/nodetemplates", json=node_templates("ms.one", data="v2", with_type=False))
    assert response.status_code == 200, response.text
    got = stored.get(f"{API}/nodetemplates/ms.one/versions/1.0.0").json()
    assert got[0]["metadata"] == {"policyModel": {"data": "v2"}}


def test_update_of_an_unknown_template_is_406(stored: httpx.Client) -> None:
    response = stored.put(f"{API}/nodetemplates", json=node_templates("ms.three", with_type=False))
    assert response.status_code == 406
    assert error_of(response) == "node template ms.three version 1.0.0 does not exist in database"
    assert stored.get(f"{API}/nodetemplates/ms.three/versions/1.0.0").json() == []


def test_delete(stored: httpx.Client) -> None:
    response = stored.delete(f"{API}/nodetemplates/ms.one/versions/1.0.0")
    assert response.status_code == 200
    assert list(response.json()["topology_template"]["node_templates"]) == ["ms.one"]
    again = stored.delete(f"{API}/nodetemplates/ms.one/versions/1.0.0")
    assert again.status_code == 404
    assert error_of(again) == "node template ms.one:1.0.0 not found"


def test_a_template_named_by_a_policy_cannot_be_deleted(stored: httpx.Client) -> None:
    create_type(stored)
    create_policies(stored, policy(metadata={"metadataSetName": "ms.one", "metadataSetVersion": "1.0.0"}))
    response = stored.delete(f"{API}/nodetemplates/ms.one/versions/1.0.0")
    assert response.status_code == 409
    assert (
        error_of(response)
        == "Node template is in use, it is referenced in Tosca Policy test.policy version 1.0.0"
    )
    assert stored.delete(f"{API}/policies/test.policy/versions/1.0.0").status_code == 200
    assert stored.delete(f"{API}/nodetemplates/ms.one/versions/1.0.0").status_code == 200


def test_a_policy_may_name_a_metadata_set_that_does_not_exist(client: httpx.Client) -> None:
    create_type(client)
    create_policies(client, policy(metadata={"metadataSetName": "ms.none", "metadataSetVersion": "1.0.0"}))
