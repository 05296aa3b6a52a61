"""Blueprints in Chromium: the paged, searchable catalog, a published CBA's page (metadata,
workflows and inputs, files, download), and upload with save / publish / enrich-and-publish."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from ..blueprints.conftest import named, sample_files, unenriched_files
from .conftest import ADMIN, assert_fits_phone, shoot

MODELS = "/api/v1/blueprint-model"


@pytest.fixture(scope="module")
def catalog(platform: dict[str, str]) -> Iterator[httpx.Client]:
    """Starter types and dictionaries, a published sample and 21 saved models tagged "bulk"."""
    with httpx.Client(base_url=platform["blueprints"], auth=ADMIN, timeout=60) as client:
        kinds = {"loadModelType": True, "loadResourceDictionary": True}
        assert client.post(MODELS + "/bootstrap", json=kinds).status_code == 200
        archive = named(sample_files(), "edge-router-cfg", "1.0.0", "edge, router, day0")
        assert client.post(MODELS + "/publish", files={"file": ("cba.zip", archive)}).status_code == 200
        for number in range(21):
            bulk = named(unenriched_files(), f"bulk-{number:02d}", "1.0.0", "bulk")
            assert client.post(MODELS, files={"file": ("cba.zip", bulk)}).status_code == 200
        yield client


def test_catalog_is_paged_and_searchable(page: Any, catalog: httpx.Client) -> None:
    page.get_by_role("link", name="Blueprints").click()
    expect(page.locator("#models caption")).to_have_text("22 models, page 1 of 2")
    page.get_by_label("Keyword").fill("bulk")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#models caption")).to_have_text("21 models matching “bulk”, page 1 of 2")
    expect(page.locator("#models tbody tr")).to_have_count(20)
    page.get_by_role("link", name="Next page").click()
    expect(page.get_by_role("link", name="bulk-20")).to_be_visible()
    expect(page.locator("#models tbody tr")).to_have_count(1)
    page.goto("/blueprints?q=day0&published=true")
    expect(page.locator("#models caption")).to_have_text("1 model matching “day0”")
    shoot(page, "blueprints-catalog")
    assert_fits_phone(page)


def test_a_models_page_its_workflows_files_and_download(
    page: Any, catalog: httpx.Client, tmp_path: Path
) -> None:
    page.goto("/blueprints?q=edge")
    page.get_by_role("link", name="edge-router-cfg").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("edge-router-cfg 1.0.0")
    expect(page.get_by_label("Metadata")).to_contain_text("edge, router, day0")
    inputs = page.locator("#workflow-resource-assignment")
    expect(inputs.get_by_role("row", name="resolution-key string yes")).to_be_visible()
    expect(
        inputs.get_by_role("row", name="resource-assignment-properties.hostname string yes input parameter")
    ).to_be_visible()
    expect(page.locator("#workflow-config-deploy")).to_be_visible()
    shoot(page, "blueprints-model")
    assert_fits_phone(page)
    with page.expect_download() as info:
        page.get_by_role("link", name="Download the archive").click()
    saved = tmp_path / "cba.zip"
    info.value.save_as(saved)
    with zipfile.ZipFile(saved) as archive:
        assert "TOSCA-Metadata/TOSCA.meta" in archive.namelist()
    page.get_by_role("link", name="Templates/baseconfig-template.vtl").click()
    expect(page.get_by_label("Content of Templates/baseconfig-template.vtl")).to_contain_text(
        sample_files()["Templates/baseconfig-template.vtl"].decode().splitlines()[0]
    )
    assert_fits_phone(page)


def upload(page: Any, archive: bytes, action: str) -> None:
    page.goto("/blueprints/upload")
    page.get_by_label("CBA archive (.zip)").set_input_files(
        {"name": "cba.zip", "mimeType": "application/zip", "buffer": archive}
    )
    page.get_by_label(action, exact=True).check()
    page.get_by_role("button", name="Upload").click()


def test_upload_publish_refused_then_enrich_and_publish(page: Any, catalog: httpx.Client) -> None:
    archive = named(unenriched_files(), "console-upload", "2.0.0", "console")
    upload(page, archive, "Validate and publish")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("The API answered 400")
    expect(alert).to_contain_text("failed in blueprint validation")
    expect(alert).to_contain_text("Failed to get NodeType(component-resource-resolution)")
    shoot(page, "blueprints-upload-error")
    assert_fits_phone(page)
    assert catalog.get(MODELS + "/by-name/console-upload/version/2.0.0").status_code == 404

    with page.expect_download() as info:
        upload(page, archive, "Enrich only (download the enriched archive)")
    enriched = zipfile.ZipFile(io.BytesIO(Path(info.value.path()).read_bytes()))
    assert "Definitions/node_types.json" in enriched.namelist(), "the enriched archive carries the types"

    upload(page, archive, "Enrich, validate and publish")
    expect(page.get_by_role("status")).to_have_text("Published.")
    expect(page.get_by_label("Metadata")).to_contain_text("yes")
    assert (
        catalog.get(MODELS + "/by-name/console-upload/version/2.0.0").json()["blueprintModel"]["published"]
        == "Y"
    )

    upload(page, named(unenriched_files(), "console-draft", "0.1.0", "console"), "Save (no validation)")
    expect(page.get_by_role("status")).to_have_text("Saved.")
    expect(page.get_by_role("heading", level=1)).to_have_text("console-draft 0.1.0")
    upload(page, b"not a zip", "Save (no validation)")
    expect(page.get_by_role("alert")).to_contain_text("the uploaded file is not a zip archive")
