"""NETCONF sessions kept open between deploys (NETPLATFORM_DEPLOY_SESSION_IDLE_S), seen from the
device: sshd's log counts logins, and each open NETCONF session is one netconf-subsystem
process that the device's sshd started for it (it ends with the session)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ...conftest import ServiceStarter, SettingsFactory
from ...support.deploy_calls import add_device, assign, deploy
from ...support.netconf_devices import NetconfDevice
from ...support.waiting import wait_until
from ..execution.conftest import save
from .conftest import BLUEPRINT, deploy_cba


def subsystems(device: NetconfDevice) -> list[int]:
    """The pids of the device's netconf-subsystem processes: its open NETCONF sessions."""
    marker = f"--ncxserver-sockname={device.port}@".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:  # the process ended meanwhile
            continue
        if b"netconf-subsystem" in command and marker in command:
            found.append(int(entry.name))
    return found


def open_sessions(device: NetconfDevice, count: int) -> None:
    """Until the device has ``count`` sessions open (the test's own closed ones end too)."""
    wait_until(lambda: len(subsystems(device)) == count, timeout=15, what=f"{count} sessions open")


@pytest.fixture
def pooled(start_service: ServiceStarter, make_settings: SettingsFactory) -> Iterator[httpx.Client]:
    with start_service("blueprints", make_settings(deploy_session_idle_s=60)).client() as http:
        yield http


def _deploy(client: httpx.Client, device: NetconfDevice, key: str, description: str) -> None:
    assign(client, BLUEPRINT, key, **{"if-name": "eth3", "description": description})
    body = deploy(client, BLUEPRINT, key, device.name)
    assert body["status"]["errorMessage"] is None


def test_a_second_deploy_to_a_device_reuses_its_session(pooled: httpx.Client, device: NetconfDevice) -> None:
    save(pooled, deploy_cba())
    add_device(pooled, device.inventory_entry())
    _deploy(pooled, device, "a", "first")
    open_sessions(device, 1)
    logins = device.logins()

    _deploy(pooled, device, "b", "second")

    assert device.logins() == logins
    assert len(subsystems(device)) == 1
    assert "<description>second</description>" in device.running()


def test_a_session_the_device_dropped_is_replaced_and_the_deploy_succeeds(
    pooled: httpx.Client, device: NetconfDevice
) -> None:
    save(pooled, deploy_cba())
    add_device(pooled, device.inventory_entry())
    _deploy(pooled, device, "a", "before the drop")
    open_sessions(device, 1)
    (kept,) = subsystems(device)
    os.kill(kept, signal.SIGKILL)  # the device's end of the kept session goes away
    open_sessions(device, 0)
    logins = device.logins()

    _deploy(pooled, device, "b", "after the drop")

    assert device.logins() == logins + 1
    assert "<description>after the drop</description>" in device.running()


def test_an_inventory_change_opens_a_new_session_and_closes_the_old_one(
    pooled: httpx.Client, device: NetconfDevice
) -> None:
    save(pooled, deploy_cba())
    add_device(pooled, device.inventory_entry())
    _deploy(pooled, device, "a", "before the change")
    open_sessions(device, 1)
    (old,) = subsystems(device)
    changed = pooled.put(f"/api/v1/devices/{device.name}", json=device.inventory_entry(replyTimeout=15))
    assert changed.status_code == 200, changed.text
    logins = device.logins()

    _deploy(pooled, device, "b", "after the change")

    assert device.logins() == logins + 1
    open_sessions(device, 1)
    assert subsystems(device) != [old]
    assert "<description>after the change</description>" in device.running()


def test_an_idle_session_is_closed_after_the_idle_bound(
    start_service: ServiceStarter, make_settings: SettingsFactory, device: NetconfDevice
) -> None:
    with start_service("blueprints", make_settings(deploy_session_idle_s=2)).client() as client:
        save(client, deploy_cba())
        add_device(client, device.inventory_entry())
        _deploy(client, device, "a", "idle")
        assert len(subsystems(device)) >= 1  # kept after the deploy (the test's own ones end too)

        open_sessions(device, 0)  # the service still runs: its reaper closed it


def test_with_pooling_off_each_deploy_logs_in_and_closes_its_session(
    start_service: ServiceStarter, make_settings: SettingsFactory, device: NetconfDevice
) -> None:
    with start_service("blueprints", make_settings(deploy_session_idle_s=0)).client() as client:
        save(client, deploy_cba())
        add_device(client, device.inventory_entry())
        logins = device.logins()
        _deploy(client, device, "a", "one")
        _deploy(client, device, "b", "two")

        assert device.logins() == logins + 2
        open_sessions(device, 0)


def test_stopping_the_service_closes_its_kept_sessions(
    start_service: ServiceStarter, make_settings: SettingsFactory, device: NetconfDevice
) -> None:
    service = start_service("blueprints", make_settings(deploy_session_idle_s=600))
    with service.client() as client:
        save(client, deploy_cba())
        add_device(client, device.inventory_entry())
        _deploy(client, device, "a", "kept")
    open_sessions(device, 1)

    service.server.stop()  # the lifespan's end

    open_sessions(device, 0)
