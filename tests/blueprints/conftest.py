"""Fixtures of the blueprint catalog suite: a running catalog, and CBAs built the reference way."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from netplatform.blueprints.catalog.enrich import is_generated_definition
from netplatform.blueprints.starter_catalog import STARTER
from netplatform.blueprints.tables import blob_chunks
from netplatform.store.db import database_for

from ..conftest import RunningService, ServiceStarter

SAMPLE = STARTER / "blueprints" / "edge-router-cfg"
SAMPLE_ENTRY = "Definitions/edge_router_cfg.json"
MODELS = "/api/v1/blueprint-model"


@pytest.fixture
def service(start_service: ServiceStarter) -> RunningService:
    return start_service("blueprints")


@pytest.fixture
def client(service: RunningService) -> Iterator[httpx.Client]:
    with service.client() as http:
        yield http


@pytest.fixture
def bootstrapped(client: httpx.Client) -> httpx.Client:
    """A catalog with the starter model types and dictionaries (no blueprints)."""
    kinds = {"loadModelType": True, "loadResourceDictionary": True}
    response = client.post(f"{MODELS}/bootstrap", json=kinds)
    assert response.status_code == 200
    return client


def sample_files() -> dict[str, bytes]:
    """The shipped sample CBA (already enriched), as archive name -> content."""
    paths = sorted(p for p in SAMPLE.rglob("*") if p.is_file())
    return {path.relative_to(SAMPLE).as_posix(): path.read_bytes() for path in paths}


def unenriched_files() -> dict[str, bytes]:
    """The sample as an author writes it: no generated Definitions, no type imports."""
    files = {name: data for name, data in sample_files().items() if not is_generated_definition(name)}
    entry = json.loads(files[SAMPLE_ENTRY])
    entry.pop("imports", None)
    files[SAMPLE_ENTRY] = json.dumps(entry).encode()
    return files


def with_meta(files: dict[str, bytes], **changes: str) -> dict[str, bytes]:
    """A copy whose TOSCA.meta has some keys changed (``Template_Name`` -> ``Template-Name``)."""
    lines = files["TOSCA-Metadata/TOSCA.meta"].decode().splitlines()
    keys = {key.replace("_", "-"): value for key, value in changes.items()}
    kept = [line for line in lines if line.partition(":")[0].strip() not in keys]
    kept.extend(f"{key}: {value}" for key, value in keys.items())
    return {**files, "TOSCA-Metadata/TOSCA.meta": "\n".join(kept).encode()}


def edit_json(files: dict[str, bytes], name: str, edit: Any) -> dict[str, bytes]:
    document = json.loads(files[name])
    edit(document)
    return {**files, name: json.dumps(document).encode()}


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def upload(client: httpx.Client, path: str, archive: bytes) -> httpx.Response:
    return client.post(f"{MODELS}{path}", files={"file": ("cba.zip", archive, "application/zip")})


def named(files: dict[str, bytes], name: str, version: str = "1.0.0", tags: str = "edge, router") -> bytes:
    return zip_bytes(with_meta(files, Template_Name=name, Template_Version=version, Template_Tags=tags))


def assert_error(response: httpx.Response, status: int, code: str, *fragments: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == status
    assert body["status"] == code
    assert body["message"].startswith("Cause: ")
    for fragment in fragments:
        assert fragment in body["message"], body["message"]
    return body


def stored_blobs(service: RunningService) -> list[str]:
    """The archives the catalog holds: files in the blob directory, and blobs in the database."""
    root = service.settings.blob_dir
    files = [p.name for p in root.rglob("*") if p.is_file()] if root.exists() else []
    with database_for(service.settings).read() as session:
        rows = session.execute(select(blob_chunks.c.blob_name).distinct()).scalars().all()
    return files + list(rows)
