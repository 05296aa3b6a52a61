"""Executions in Chromium: a published CBA's workflow run from the console with JSON inputs, its
record (status, error, inputs, output) and the template it stored, the latest runs newest first,
and a reader of the catalog offered no run form (a forged run refused by the catalog)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from ..support.cbas import PROCESS, assignment, cba, execution, resolution_node, workflow
from .conftest import ADMIN, VIEWS, WAIT_MS, assert_fits_phone, assert_labelled, shoot, sign_in
from .test_access import forge

MODELS = "/api/v1/blueprint-model"
NAME = "console-hello"
BP_READER = ("bp-reader", "bp-reader-secret")  # blueprints.reader: reads the catalog, runs nothing


def hello_cba() -> bytes:
    mapping = [
        assignment("hostname"),
        assignment("ntp-server", "default", required=False, default="ntp.example.net"),
    ]
    template = "hostname ${hostname}\nntp server ${ntp-server}\n"
    return cba(
        NAME,
        {
            "config-assign": workflow(
                {"assign": {"target": "resolve"}},
                outputs={"dry-run": {"get_attribute": ["resolve", "assignment-params"]}},
                inputs={"resolution-key": {"type": "string", "required": True}},
            )
        },
        {
            "resolve": resolution_node(
                {"hostname": "vtl"}, {"store-result": True, "resolution-key": {"get_input": "resolution-key"}}
            )
        },
        {"Templates/hostname-mapping.json": mapping, "Templates/hostname-template.vtl": template},
    )


@pytest.fixture(scope="module")
def catalog(platform: dict[str, str]) -> Iterator[httpx.Client]:
    """The starter types, the hello CBA enriched and published, and one run of it through the API
    that failed (no hostname)."""
    with httpx.Client(base_url=platform["blueprints"], auth=ADMIN, timeout=60) as client:
        kinds = {"loadModelType": True, "loadResourceDictionary": True}
        assert client.post(MODELS + "/bootstrap", json=kinds).status_code == 200
        published = client.post(MODELS + "/enrichandpublish", files={"file": ("cba.zip", hello_cba())})
        assert published.status_code == 200, published.text
        failed = execution(NAME, "config-assign", {"resolution-key": "api-1"})
        assert client.post(PROCESS, json=failed).status_code == 500
        yield client


@pytest.fixture(scope="module")
def catalog_reader(platform: dict[str, str]) -> tuple[str, str]:
    """An identity holding blueprints.reader only, created through the authz API."""
    with httpx.Client(base_url=platform["authz"], auth=ADMIN, timeout=30) as authz:
        user, password = BP_READER
        assert authz.post("/authn/cred", json={"id": user, "password": password}).is_success
        assert authz.post("/authz/userRole", json={"user": user, "role": "blueprints.reader"}).is_success
    return BP_READER


def choose_and_open_the_run_form(page: Any) -> None:
    page.get_by_role("link", name="Blueprints").click()
    page.get_by_role("link", name="Executions").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Executions")
    page.get_by_label("Published blueprint").select_option(label=f"{NAME} 1.0.0")
    page.get_by_role("button", name="Choose").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Run a workflow of {NAME} 1.0.0")


def test_a_run_from_the_console_its_record_and_stored_template(page: Any, catalog: httpx.Client) -> None:
    choose_and_open_the_run_form(page)
    inputs = page.get_by_label("Inputs (a JSON object)")
    # The workflow's declared inputs, offered to fill in.
    assert "resolution-key" in json.loads(inputs.input_value())
    assert_labelled(page)
    inputs.fill("{not json")
    page.get_by_role("button", name="Run config-assign").click()
    expect(page.get_by_role("alert")).to_contain_text("The inputs are not JSON")
    expect(page.get_by_label("Inputs (a JSON object)")).to_have_value("{not json")

    typed = {
        "resolution-key": "day-1",
        "config-assign-properties": {"hostname": "edge-1", "ntp-server": "ntp.edge.net"},
    }
    page.get_by_label("Inputs (a JSON object)").fill(json.dumps(typed))
    page.get_by_role("button", name="Run config-assign").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Run")
    run = page.get_by_label("Run", exact=True)
    expect(run).to_contain_text("Completed")
    expect(run).to_contain_text("console:admin")
    expect(page.get_by_label("Inputs of the run")).to_contain_text('"hostname": "edge-1"')
    expect(page.get_by_label("Output of the run")).to_contain_text("ntp server ntp.edge.net")
    stored = page.get_by_label("Stored template hostname 1")
    expect(stored).to_have_text("hostname edge-1\nntp server ntp.edge.net\n")
    shoot(page, "executions-run")
    assert_fits_phone(page)
    # What the page showed is what the catalog stored.
    text = catalog.get(
        "/api/v1/template",
        params={"bpName": NAME, "bpVersion": "1.0.0", "artifactName": "hostname", "resolutionKey": "day-1"},
    )
    assert text.status_code == 200 and text.text.startswith("hostname edge-1\n")

    page.get_by_role("link", name="Executions").click()
    rows = page.locator("#runs tbody tr")
    expect(rows.first).to_contain_text("Completed")
    expect(rows.first).to_contain_text("console:admin")
    expect(rows.nth(1)).to_contain_text("Failed")
    expect(rows.nth(1)).to_contain_text("Failed to resolve required values: [hostname]")
    shoot(page, "executions")
    assert_fits_phone(page)


def test_a_failing_run_shows_its_error_and_the_model_page_offers_runs(
    page: Any, catalog: httpx.Client
) -> None:
    page.goto(f"/blueprints/{NAME}/1.0.0")
    page.get_by_role("link", name="Run config-assign").click()
    page.get_by_label("Inputs (a JSON object)").fill('{"resolution-key": "day-2"}')
    page.get_by_label("Mode").select_option("async")
    page.get_by_role("button", name="Run config-assign").click()
    # Async: the page may first show the run in progress; a reload shows its end.
    alert = page.get_by_role("alert")
    for _ in range(20):
        if page.get_by_label("Run", exact=True).inner_text().find("In Progress") < 0:
            break
        page.wait_for_timeout(250)
        page.reload()
    expect(alert).to_contain_text("Failed: step(assign): Failed to resolve required values: [hostname]")
    expect(page.get_by_label("Run", exact=True)).to_contain_text("async")
    expect(page.locator("main")).to_contain_text("Nothing is stored under this key.")


def test_a_catalog_reader_sees_the_runs_but_no_run_form(
    browser: Any, console: str, catalog: httpx.Client, catalog_reader: tuple[str, str]
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=console)
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        sign_in(page, "/executions", *catalog_reader)
        expect(page.get_by_role("heading", level=1)).to_have_text("Executions")
        expect(page.locator("#runs tbody tr").first).to_contain_text(NAME)
        expect(page.locator("#not-permitted")).to_contain_text("platform.blueprints.api|execution|write")
        expect(page.get_by_label("Published blueprint")).to_have_count(0)
        assert_fits_phone(page, VIEWS)
        page.goto(f"/blueprints/{NAME}/1.0.0")
        expect(page.get_by_role("heading", level=1)).to_contain_text(NAME)
        expect(page.get_by_role("link", name="Run config-assign")).to_have_count(0)
        page.goto("/executions/run?model=" + json.dumps([NAME, "1.0.0"]) + "&workflow=config-assign")
        expect(page.locator("#not-permitted")).to_contain_text(
            f"platform.blueprints.execution|{NAME}|execute"
        )
        expect(page.locator("main form")).to_have_count(0)

        before = len(catalog.get("/api/v1/workflow/audit", params={"limit": 500}).json())
        fields = {"model": json.dumps([NAME, "1.0.0"]), "workflow": "config-assign", "mode": "sync"}
        key = str(uuid.uuid4())
        answer = forge(page, "/executions/run", {**fields, "inputs": json.dumps({"resolution-key": key})})
        assert answer.status == 403
        expect(page.get_by_role("alert")).to_contain_text("The API answered 403")
        expect(page.get_by_role("alert")).to_contain_text("User bp-reader does not have permission")
        assert len(catalog.get("/api/v1/workflow/audit", params={"limit": 500}).json()) == before
    finally:
        context.close()
