"""Paths and bodies the config tree tests share, written out as a client would write them."""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import quote

import httpx

M = "GENERIC-RESOURCE-API"
ROOT = f"/config/{M}:brg-allotted-resources/"


def node(*segments: str) -> str:
    """The URI below the root: node names get the module prefix, ``=``-prefixed keys are quoted."""
    parts = [
        quote(segment[1:], safe="") if segment.startswith("=") else f"{M}:{segment}" for segment in segments
    ]
    return ROOT + "".join(part + "/" for part in parts)


def entry_path(resource_id: str, *below: str) -> str:
    return node("brg-allotted-resource", "=" + resource_id, *below)


DATA = ("allotted-resource-data",)
OPERATION = (*DATA, "allotted-resource-operation-information")
TOPOLOGY = (*DATA, "brg-topology")


def example_entry(resource_id: str = "ar-7") -> dict[str, Any]:
    """The reference's example allotted resource (section 9), every node of the subtree populated."""
    return copy.deepcopy(
        {
            "allotted-resource-id": resource_id,
            "allotted-resource-data": {
                "allotted-resource-operation-information": {
                    "sdnc-request-header": {"svc-request-id": "req-71", "svc-action": "create"},
                    "request-information": {
                        "request-id": "ord-5512",
                        "request-action": "CreateBRGInstance",
                        "source": "portal",
                    },
                    "service-information": {
                        "service-instance-id": "si-204",
                        "platform-model-information": {"model-name": "brg-ar", "model-version": "2.0"},
                    },
                    "allotted-resource-information": {
                        "allotted-resource-id": resource_id,
                        "allotted-resource-type": "brg",
                        "platform-model-information": {"model-uuid": "m-1"},
                    },
                    "brg-request-input": {
                        "vgmux-bearer-ip": "192.0.2.14",
                        "vni": "3021",
                        "brg-wan-mac-address": "02:42:ac:11:00:07",
                    },
                },
                "brg-topology": {
                    "allotted-resource-identifiers": {
                        "allotted-resource-id": resource_id,
                        "allotted-resource-name": "brg-7",
                    },
                    "platform-model-information": {"model-invariant-uuid": "inv-1"},
                    "brg-assignments": {"vbrg-wan-ip": "198.51.100.40"},
                    "brg-parameters": {
                        "param": [
                            {
                                "name": "vlan",
                                "value": "110",
                                "resource-resolution-data": {
                                    "resource-key": [{"name": "site", "value": "lab-2"}],
                                    "status": "SUCCESS",
                                },
                            }
                        ]
                    },
                },
                "brg-parameters": {
                    "param": [
                        {
                            "name": "speed",
                            "value": "1G",
                            "resource-resolution-data": {
                                "resource-key": [{"name": "profile", "value": "gold"}],
                                "capability-name": "bandwidth",
                                "payload": "{}",
                            },
                        }
                    ]
                },
                "allotted-resource-oper-status": {
                    "order-status": "PendingCreate",
                    "last-action": "CreateBRGInstance",
                },
            },
            "allotted-resource-status": {"request-status": "synccomplete", "rpc-action": "create"},
        }
    )


def entry_body(entry: dict[str, Any]) -> dict[str, Any]:
    return {f"{M}:brg-allotted-resource": [entry]}


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The one RESTCONF error of an error response."""
    [error] = response.json()["errors"]["error"]
    found: dict[str, Any] = error
    return found
