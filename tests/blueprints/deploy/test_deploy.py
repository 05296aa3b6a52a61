"""Config deploy through the real HTTP API to real NETCONF devices (netconfd behind sshd): the
device's running configuration is read back by the test itself over its own NETCONF session."""

from __future__ import annotations

import httpx

from ...support.deploy_calls import add_device, assign, deploy, result_of
from ...support.netconf_devices import NetconfDevice
from ..execution.conftest import save
from .conftest import BLUEPRINT, deploy_cba


def test_assign_then_deploy_puts_the_rendered_values_in_the_running_config(
    client: httpx.Client, device: NetconfDevice
) -> None:
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "day-1", **{"if-name": "eth7", "description": "uplink to core"})

    body = deploy(client, BLUEPRINT, "day-1", device.name)

    running = device.running()
    assert "<name>eth7</name>" in running
    assert "<description>uplink to core</description>" in running
    (result,) = result_of(body)["devices"]
    assert result["status"] == "success"
    assert result["datastore"] == "candidate"
    assert "uplink to core" in result["sent"]
    assert "+" in result["diff"] and "uplink to core" in result["diff"]
    assert body["status"]["errorMessage"] is None
