"""The config tree in Chromium: browse an entry created through the API, edit and create in forms
generated from the YANG model (via the service's /openapi.json), the API's refusal next to the field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import ADMIN, assert_fits_phone, assert_labelled, shoot

ROOT = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/"
ENTRY = ROOT + "GENERIC-RESOURCE-API:brg-allotted-resource/ar-7/"
DATA = ENTRY + "GENERIC-RESOURCE-API:allotted-resource-data/"
INPUT = (
    DATA
    + "GENERIC-RESOURCE-API:allotted-resource-operation-information/GENERIC-RESOURCE-API:brg-request-input/"
)
AR7 = {
    "brg-allotted-resource": [
        {
            "allotted-resource-id": "ar-7",
            "allotted-resource-data": {
                "allotted-resource-operation-information": {
                    "sdnc-request-header": {"svc-request-id": "req-71", "svc-action": "create"},
                    "brg-request-input": {"vgmux-bearer-ip": "192.0.2.14", "vni": "3021"},
                },
                "brg-topology": {"brg-parameters": {"param": [{"name": "vlan", "value": "110"}]}},
            },
            "allotted-resource-status": {"request-status": "synccomplete", "rpc-action": "create"},
        }
    ]
}


@pytest.fixture
def config_api(platform: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=platform["configtree"], auth=ADMIN, timeout=30) as client:
        assert client.put(ENTRY, json=AR7).status_code in (201, 204)
        yield client


def test_browse_the_tree_down_to_a_list_entry(page: Any, config_api: httpx.Client) -> None:
    page.get_by_role("link", name="Config tree").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("brg-allotted-resources")
    page.locator("#list-brg-allotted-resource").get_by_role("link", name="ar-7").click()
    expect(page.get_by_role("row", name="allotted-resource-id ar-7 string, mandatory")).to_be_visible()
    page.get_by_role("link", name="allotted-resource-data").click()
    page.get_by_role("link", name="brg-topology").click()
    page.get_by_role("link", name="brg-parameters").click()
    page.locator("#list-param").get_by_role("link", name="vlan").click()
    expect(page.get_by_role("row", name="value 110")).to_be_visible()
    expect(page.get_by_role("link", name="brg-topology")).to_be_visible()  # the breadcrumbs
    shoot(page, "config-entry")
    assert_fits_phone(page)


def test_edit_with_an_enum_and_see_the_apis_error_next_to_the_field(
    page: Any, config_api: httpx.Client
) -> None:
    page.goto(ENTRY + "GENERIC-RESOURCE-API:allotted-resource-status/")
    page.get_by_role("link", name="Edit").click()
    status = page.get_by_label("request-status")
    # The YANG enum, in order (an assertion that waits for the form, unlike reading the options).
    expect(status.locator("option")).to_have_text(
        ["— none —", "synccomplete", "asynccomplete", "notifycomplete"]
    )
    expect(status).to_have_value("synccomplete")
    assert_labelled(page)
    status.select_option("notifycomplete")
    page.get_by_label("response-message").fill("done by the console")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Saved.")
    expect(page.get_by_role("row", name="request-status notifycomplete")).to_be_visible()
    stored = config_api.get(ENTRY + "GENERIC-RESOURCE-API:allotted-resource-status/").json()
    assert stored["GENERIC-RESOURCE-API:allotted-resource-status"] == {
        "request-status": "notifycomplete",
        "rpc-action": "create",
        "response-message": "done by the console",
    }

    page.goto(INPUT + "?form=edit")
    page.get_by_label("vgmux-bearer-ip").fill("not-an-address")
    page.get_by_role("button", name="Save").click()
    field = page.locator(".field", has=page.get_by_label("vgmux-bearer-ip"))
    expect(field.locator(".field-error")).to_have_text('Invalid value "not-an-address" for union type.')
    expect(page.get_by_label("vgmux-bearer-ip")).to_have_attribute("aria-invalid", "true")
    shoot(page, "config-error")
    assert_fits_phone(page)
    stored = config_api.get(INPUT).json()["GENERIC-RESOURCE-API:brg-request-input"]
    assert stored["vgmux-bearer-ip"] == "192.0.2.14", "nothing written"


def test_create_an_entry_and_a_container_from_the_model(page: Any, config_api: httpx.Client) -> None:
    config_api.delete(ROOT + "GENERIC-RESOURCE-API:brg-allotted-resource/ar%2Fnew/")
    page.goto(ROOT)
    page.locator("#list-brg-allotted-resource").get_by_role("link", name="Add brg-allotted-resource").click()
    expect(page.get_by_text("allotted-resource-id (required)")).to_be_visible()
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".field-error")).to_have_text("A value is required.")
    page.get_by_label("allotted-resource-id").fill("ar/new")
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("status")).to_have_text("Created.")
    expect(page.get_by_role("heading", level=1)).to_have_text("brg-allotted-resource ar/new")
    assert config_api.get(ROOT + "GENERIC-RESOURCE-API:brg-allotted-resource/ar%2Fnew/").status_code == 200

    page.get_by_role("link", name="Create allotted-resource-status").click()
    page.get_by_label("rpc-action").select_option("assign")
    shoot(page, "config-form")
    assert_fits_phone(page)
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("status")).to_have_text("Created.")
    expect(page.get_by_role("row", name="rpc-action assign")).to_be_visible()
    again = page.url
    page.goto(ROOT + "GENERIC-RESOURCE-API:brg-allotted-resource/ar%2Fnew/")
    expect(page.get_by_role("link", name="allotted-resource-status")).to_have_attribute(
        "href", again.split("?")[0].split(page.url.split("/config/")[0])[1]
    )
