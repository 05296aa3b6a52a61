"""Devices in Chromium: a device added without its host key, checked (the key it presents
shown), its key trusted by the administrator and checked again (its capabilities); a deploy to
it then shows on the run's page with its diff. The device is a real netconfd behind sshd."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from ..blueprints.deploy.conftest import BLUEPRINT, deploy_cba
from ..support.deploy_calls import assign, deploy
from ..support.netconf_devices import NetconfDevice, missing, netconf_devices
from .conftest import ADMIN, assert_labelled, shoot


@pytest.fixture(scope="module")
def device() -> Iterator[NetconfDevice]:
    why = missing()
    if why is not None:
        pytest.fail(why)
    with netconf_devices(1) as (started,):
        yield started


@pytest.fixture(scope="module")
def catalog(platform: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=platform["blueprints"], auth=ADMIN, timeout=60) as client:
        saved = client.post("/api/v1/blueprint-model", files={"file": ("cba.zip", deploy_cba())})
        assert saved.status_code == 200, saved.text
        yield client


def add_device_in_the_form(page: Any, device: NetconfDevice, name: str) -> None:
    page.get_by_role("link", name="Blueprints").click()
    page.get_by_role("link", name="Devices").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Devices")
    assert_labelled(page)
    page.get_by_label("Name").fill(name)
    page.get_by_label("Host", exact=True).fill("127.0.0.1")
    page.get_by_label("Port").fill(str(device.port))
    page.get_by_label("User").fill(device.username)
    page.get_by_label("Password").fill(device.password)
    page.get_by_role("button", name="Add").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Device {name}")


def test_a_device_is_added_checked_and_its_key_trusted(page: Any, device: NetconfDevice) -> None:
    name = f"edge-{uuid.uuid4().hex[:6]}"
    add_device_in_the_form(page, device, name)
    expect(page.get_by_role("status")).to_have_text("The device was added.")
    assert device.password not in page.content()

    page.get_by_role("button", name="Check").click()
    expect(page.get_by_role("alert")).to_contain_text("no host key is pinned for this device")
    trust = page.get_by_role("button", name="Trust SHA256:")
    expect(trust).to_be_visible()
    shoot(page, "devices-check-unknown-key")
    trust.click()
    expect(page.get_by_role("status")).to_have_text("The device's host key is trusted now.")

    page.get_by_role("button", name="Check").click()
    expect(page.get_by_role("list", name="Capabilities")).to_contain_text("capability:candidate:1.0")
    shoot(page, "devices-check-ok")


def test_a_run_shows_what_its_deploy_did_with_the_diff(
    page: Any, device: NetconfDevice, catalog: httpx.Client
) -> None:
    device.reset()
    name = f"core-{uuid.uuid4().hex[:6]}"
    entry = device.inventory_entry(name=name)
    assert catalog.post("/api/v1/devices", json=entry).status_code == 201
    assign(catalog, BLUEPRINT, "console-1", **{"if-name": "eth3", "description": "seen in the console"})
    body = deploy(catalog, BLUEPRINT, "console-1", name)
    header = body["commonHeader"]

    page.goto(f"/executions/{header['requestId']}/{header['subRequestId']}")
    expect(page.get_by_role("heading", name="Config deploy")).to_be_visible()
    diff = page.get_by_label("Diff of deploy", exact=False)
    expect(diff).to_contain_text("<description>seen in the console</description>")
    shoot(page, "executions-deploy-diff")

    page.get_by_role("link", name=name).first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Device {name}")
    expect(page.get_by_label("Diff of deploy", exact=False).first).to_contain_text("seen in the console")
