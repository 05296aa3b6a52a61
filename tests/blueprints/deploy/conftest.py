"""Fixtures of the config deploy suite: real NETCONF devices (netconfd behind sshd) for the
session, a catalog for each test, and the CBA that renders and deploys an interface."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ...conftest import RunningService, ServiceStarter
from ...support.cbas import assignment, cba, resolution_node, workflow
from ...support.netconf_devices import NetconfDevice, missing, netconf_devices

DEVICES = 6
BLUEPRINT = "edge-deploy"
INTERFACE = "ComponentNetconfExecutor"
IF_NS = "urn:ietf:params:xml:ns:yang:ietf-interfaces"
TEMPLATE = (
    f'<interfaces xmlns="{IF_NS}">\n'
    "  <interface>\n"
    "    <name>${if-name}</name>\n"
    "    <description>${description}</description>\n"
    '    <type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type>\n'
    "    <enabled>${enabled}</enabled>\n"
    "  </interface>\n"
    "</interfaces>\n"
)


@pytest.fixture(scope="session")
def devices() -> Iterator[list[NetconfDevice]]:
    """Real NETCONF devices for the whole session (each test resets the ones it uses)."""
    why = missing()
    if why is not None:
        pytest.fail(why)  # CI installs them (.ci/netconfd): a missing device server is a failure
    with netconf_devices(DEVICES) as started:
        yield started


@pytest.fixture(scope="session")
def running_only_device() -> Iterator[NetconfDevice]:
    """A device without a candidate datastore (netconfd --target=running: :writable-running)."""
    why = missing()
    if why is not None:
        pytest.fail(why)
    with netconf_devices(1, target="running") as (started,):
        yield started


@pytest.fixture
def device(devices: list[NetconfDevice]) -> NetconfDevice:
    devices[0].reset()
    return devices[0]


@pytest.fixture
def catalog(start_service: ServiceStarter) -> RunningService:
    return start_service("blueprints")


@pytest.fixture
def client(catalog: RunningService) -> Iterator[httpx.Client]:
    with catalog.client() as http:
        yield http


def deploy_inputs(**inputs: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "device": {"get_input": "device"},
        "template-prefix": "interfaces",
        "resolution-key": {"get_input": "resolution-key"},
    }
    base.update(inputs)
    return {key: value for key, value in base.items() if value is not None}


def dictionary_entries() -> dict[str, Any]:
    """The dictionary entries of the CBA's values (enrichment looks every assignment up in the
    catalog's dictionary: ``POST /api/v1/dictionary/definition`` each)."""
    return {
        name: {
            "name": name,
            "group": "default",
            "updated-by": "tests",
            "tags": name,
            "property": {"type": "string", "description": name},
            "sources": {"input": {"type": "source-input"}, "default": {"type": "source-default"}},
        }
        for name in ("if-name", "description", "enabled")
    }


def netconf_node(inputs: dict[str, Any]) -> dict[str, Any]:
    """A config deploy node template, with the starter type's interface and operation names."""
    operations = {"process": {"inputs": inputs}}
    return {"type": "component-netconf-executor", "interfaces": {INTERFACE: {"operations": operations}}}


def deploy_cba(deploy: dict[str, Any] | None = None, *, timeout: int | None = None) -> bytes:
    """config-assign (renders and stores the interface), config-deploy (pushes the stored one),
    assign-and-deploy (both in one run), plus check and rollback workflows."""
    node = netconf_node(deploy_inputs(**(deploy or {})))
    if timeout is not None:
        operation = node["interfaces"][INTERFACE]["operations"]["process"]
        operation["implementation"] = {"primary": "component-netconf-executor", "timeout": timeout}
    check = netconf_node(deploy_inputs(mode="check"))
    rollback = netconf_node({"device": {"get_input": "device"}, "mode": "rollback"})
    result = {"result": {"get_attribute": ["deploy", "response-data"]}}
    inputs = {"resolution-key": {"type": "string"}, "device": {"type": "json"}}
    return cba(
        BLUEPRINT,
        {
            "config-assign": workflow({"assign": {"target": "resolve"}}, inputs=inputs),
            "config-deploy": workflow({"deploy": {"target": "deploy"}}, result, inputs),
            "assign-and-deploy": workflow(
                {"assign": {"target": "resolve", "on_success": ["deploy"]}, "deploy": {"target": "deploy"}},
                result,
                inputs,
            ),
            "config-check": workflow(
                {"check": {"target": "check"}},
                {"result": {"get_attribute": ["check", "response-data"]}},
                inputs,
            ),
            "config-rollback": workflow(
                {"rollback": {"target": "rollback"}},
                {"result": {"get_attribute": ["rollback", "response-data"]}},
                inputs,
            ),
        },
        {
            "resolve": resolution_node(
                {"interfaces": "vtl"},
                {"resolution-key": {"get_input": "resolution-key"}, "store-result": True},
            ),
            "deploy": node,
            "check": check,
            "rollback": rollback,
        },
        {
            "Templates/interfaces-mapping.json": [
                assignment("if-name"),
                assignment("description"),
                assignment("enabled", "default", required=False, default="true"),
            ],
            "Templates/interfaces-template.vtl": TEMPLATE,
        },
        definitions=dictionary_entries(),
    )
