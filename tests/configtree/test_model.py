"""Domain units driven by the YANG model: URI parsing, body decoding, instance editing."""

from __future__ import annotations

from typing import Any

import pytest

from netplatform.configtree.body import decode, value_problem
from netplatform.configtree.instances import locate, place, prune, remove
from netplatform.configtree.paths import parse_target
from netplatform.configtree.schema import data_model, key_names
from netplatform.web.errors import ApiError

M = "GENERIC-RESOURCE-API"
ENTRY = f"{M}:brg-allotted-resources/{M}:brg-allotted-resource"


def test_the_model_has_the_reference_subtree() -> None:
    schema = data_model().schema
    top = schema.get_data_child("brg-allotted-resources", M)
    entry = top.get_data_child("brg-allotted-resource", M)
    assert key_names(entry) == ["allotted-resource-id"]
    param = data_model().get_schema_node(
        f"/{M}:brg-allotted-resources/brg-allotted-resource/allotted-resource-data/brg-parameters/param"
    )
    assert key_names(param) == ["name"]


def enum_values(leaf_path: str) -> list[str]:
    node = data_model().get_schema_node(f"/{M}:brg-allotted-resources/brg-allotted-resource/{leaf_path}")
    return list(node.type.enum)


def test_enumerations_keep_the_reference_order() -> None:
    operation = "allotted-resource-data/allotted-resource-operation-information"
    oper_status = "allotted-resource-data/allotted-resource-oper-status"
    request_actions = enum_values(f"{operation}/request-information/request-action")
    last_actions = enum_values(f"{oper_status}/last-action")
    assert len(enum_values(f"{operation}/sdnc-request-header/svc-action")) == 15
    assert len(request_actions) == 97
    assert len(last_actions) == 96
    assert last_actions[:6] == [
        "CreateNetworkInstance",
        "ActivateNetworkInstance",
        "DeActivateNetworkInstance",
        "DeleteNetworkInstance",
        "CreateServiceInstance",
        "DeleteServiceInstance",
    ]
    assert "RebuildGenericConfigurationInstance" not in last_actions
    assert last_actions[6:] == [a for a in request_actions[6:] if a != "RebuildGenericConfigurationInstance"]
    assert enum_values(f"{oper_status}/order-status") == enum_values(f"{oper_status}/last-order-status")
    assert len(enum_values(f"{oper_status}/last-rpc-action")) == 8
    assert enum_values("allotted-resource-status/rpc-action") == [
        "assign",
        "activate",
        "create",
        "delete",
        "unassign",
        "deactivate",
    ]


@pytest.mark.parametrize(
    ("address", "valid"),
    [
        ("0.0.0.0", True),  # noqa: S104 - an address value, not a bind
        ("255.255.255.255", True),
        ("10.0.0.1%eth0", True),
        ("10.0.0.1%\u0663", True),  # a Unicode digit in the zone (\p{N})
        ("256.0.0.1", False),
        ("10.0.0", False),
        ("10.0.0.1%", False),
        ("::", True),
        ("2001:db8::8a2e:370:7334", True),
        ("::ffff:10.0.0.1", True),
        ("fe80::1%en0", True),
        ("1:2:3:4:5:6:7:8:9", False),
        ("2001:db8:::1", False),
        ("", False),
    ],
)
def test_ip_address_patterns(address: str, valid: bool) -> None:
    leaf = data_model().get_schema_node(
        f"/{M}:brg-allotted-resources/brg-allotted-resource/allotted-resource-data/brg-topology/brg-assignments/vbrg-wan-ip"
    )
    assert (value_problem(leaf.type, address) is None) is valid


def test_uri_steps_and_identifiers() -> None:
    target = parse_target(f"{ENTRY}/a%2Fb/allotted-resource-data/{M}:brg-parameters/param/p%252F/".encode())
    assert [step.node.name for step in target.steps] == [
        "brg-allotted-resources",
        "brg-allotted-resource",
        "allotted-resource-data",
        "brg-parameters",
        "param",
    ]
    assert target.steps[1].keys == ("a/b",)
    assert target.last.keys == ("p%2F",)
    assert target.instance_identifier() == (
        f"/{M}:brg-allotted-resources/brg-allotted-resource=a%2Fb/allotted-resource-data/brg-parameters/param=p%252F"
    )
    assert target.uri_path() == (
        f"/config/{ENTRY}/a%2Fb/{M}:allotted-resource-data/{M}:brg-parameters/{M}:param/p%252F/"
    )


def test_a_list_at_the_end_of_a_uri_has_no_keys() -> None:
    target = parse_target(f"{ENTRY}".encode())
    assert target.is_list_without_keys


def test_uri_errors_are_restconf_errors() -> None:
    with pytest.raises(ApiError) as raised:
        parse_target(f"{ENTRY}/x/allotted-resource-id".encode())
    assert raised.value.status == 400
    assert raised.value.code == "invalid-value"


def decode_at(path: str, value: Any) -> Any:
    node = data_model().get_schema_node(f"/{M}:brg-allotted-resources/brg-allotted-resource/{path}")
    return decode(node, value, "/here")


def test_decode_canonicalises_names_and_keeps_values() -> None:
    value = {f"{M}:brg-assignments": {"vbrg-wan-ip": "2001:DB8::1"}, "brg-parameters": {"param": []}}
    assert decode_at("allotted-resource-data/brg-topology", value) == {
        "brg-assignments": {"vbrg-wan-ip": "2001:DB8::1"},
        "brg-parameters": {"param": []},
    }


def test_decode_names_the_offending_member() -> None:
    with pytest.raises(ApiError) as raised:
        decode_at("allotted-resource-data/brg-topology", {"brg-assignments": {"vbrg-wan-ip": "x"}})
    assert raised.value.extra["error_path"] == "/here/brg-assignments/vbrg-wan-ip"


def test_instances_place_locate_remove_and_prune() -> None:
    target = parse_target(
        f"{ENTRY}/e/allotted-resource-data/brg-parameters/param/p1/resource-resolution-data".encode()
    )
    steps = target.steps[2:]
    document: dict[str, Any] = {"allotted-resource-id": "e"}
    assert place(document, steps, {"status": "ok"}) is False
    assert document == {
        "allotted-resource-id": "e",
        "allotted-resource-data": {
            "brg-parameters": {"param": [{"name": "p1", "resource-resolution-data": {"status": "ok"}}]}
        },
    }
    assert locate(document, steps) == {"status": "ok"}
    assert place(document, steps, {}) is True
    entry_steps = steps[:-1]
    assert remove(document, entry_steps) is True
    assert document == {"allotted-resource-id": "e", "allotted-resource-data": {"brg-parameters": {}}}
    assert remove(document, entry_steps) is False
    node = target.steps[1].node
    assert prune(node, [document], 1) == [{"allotted-resource-id": "e"}]
