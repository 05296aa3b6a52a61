"""Blueprint archives through real HTTP: save, publish, read, download, replace, delete."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.databases import postgres_server_url
from .conftest import (
    MODELS,
    assert_error,
    named,
    sample_files,
    stored_blobs,
    unenriched_files,
    unzip,
    upload,
    zip_bytes,
)

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_save_without_validation_stores_meta_data_from_tosca_meta(client: httpx.Client) -> None:
    response = upload(client, "", named(sample_files(), "edge-a", "2.1.0", "edge, router, day0"))
    assert response.status_code == 200, response.text
    model = response.json()["blueprintModel"]
    assert model["artifactName"] == "edge-a"
    assert model["artifactVersion"] == "2.1.0"
    assert model["artifactType"] == "SDNC_MODEL"
    assert model["artifactDescription"] == "Controller Blueprint for edge-a:2.1.0"
    assert model["published"] == "N"
    assert model["updatedBy"] == "netplatform starter catalog"
    assert model["tags"] == "edge, router, day0"
    assert model["artifactUUId"] is None and model["internalVersion"] is None
    assert TIMESTAMP.match(model["createdDate"])
    assert list(model) == [
        "id",
        "artifactUUId",
        "artifactType",
        "artifactVersion",
        "artifactDescription",
        "internalVersion",
        "createdDate",
        "artifactName",
        "published",
        "updatedBy",
        "tags",
    ]


def test_save_accepts_an_archive_that_would_not_validate(client: httpx.Client) -> None:
    files = sample_files()
    files.pop("Definitions/node_types.json")
    response = upload(client, "", zip_bytes(files))
    assert response.status_code == 200
    assert response.json()["blueprintModel"]["published"] == "N"


def test_publish_validates_and_marks_published(bootstrapped: httpx.Client) -> None:
    response = upload(bootstrapped, "/publish", zip_bytes(sample_files()))
    assert response.status_code == 200, response.text
    assert response.json()["blueprintModel"]["published"] == "Y"


def test_model_is_found_by_id_and_by_name(client: httpx.Client) -> None:
    saved = upload(client, "", named(sample_files(), "finder")).json()["blueprintModel"]
    by_id = client.get(f"{MODELS}/{saved['id']}")
    by_name = client.get(f"{MODELS}/by-name/finder/version/1.0.0")
    assert by_id.status_code == by_name.status_code == 200
    assert by_id.json() == by_name.json() == {"blueprintModel": saved}
    listed = client.get(MODELS).json()
    assert listed == [{"blueprintModel": saved}]


def test_unknown_models_are_404_resource_not_found(client: httpx.Client) -> None:
    assert_error(
        client.get(f"{MODELS}/no-such-id"),
        404,
        "RESOURCE_NOT_FOUND",
        "failed to get blueprint model id(no-such-id) from repo",
        "Action : Provide the ID to find the resource.",
    )
    assert_error(
        client.get(f"{MODELS}/by-name/ghost/version/1.0.0"),
        404,
        "RESOURCE_NOT_FOUND",
        "failed to get blueprint model by name(ghost) and version(1.0.0) from repo",
    )
    assert_error(client.get(f"{MODELS}/download/no-such-id"), 404, "RESOURCE_NOT_FOUND")
    assert_error(client.get(f"{MODELS}/download/by-name/ghost/version/1"), 404, "RESOURCE_NOT_FOUND")


def test_download_returns_exactly_the_uploaded_bytes(client: httpx.Client) -> None:
    archive = named(sample_files(), "round-trip", "3.0.0")
    saved = upload(client, "", archive).json()["blueprintModel"]
    by_id = client.get(f"{MODELS}/download/{saved['id']}")
    by_name = client.get(f"{MODELS}/download/by-name/round-trip/version/3.0.0")
    for response in (by_id, by_name):
        assert response.status_code == 200
        assert response.content == archive
        assert response.headers["content-disposition"] == 'attachment; filename="round-trip_3.0.0.zip"'
        assert response.headers["content-type"] == "application/zip"


def test_reupload_replaces_the_model_atomically(client: httpx.Client, service: RunningService) -> None:
    first = upload(client, "", named(sample_files(), "replaced", tags="old")).json()["blueprintModel"]
    second_archive = named(sample_files(), "replaced", tags="new")
    second = upload(client, "", second_archive).json()["blueprintModel"]
    assert second["id"] != first["id"]
    assert_error(client.get(f"{MODELS}/{first['id']}"), 404, "RESOURCE_NOT_FOUND")
    assert client.get(f"{MODELS}/by-name/replaced/version/1.0.0").json()["blueprintModel"]["tags"] == "new"
    assert client.get(f"{MODELS}/download/{second['id']}").content == second_archive
    assert len(client.get(MODELS).json()) == 1
    assert len(stored_blobs(service)) == 1


def test_delete_by_id_and_by_name(client: httpx.Client, service: RunningService) -> None:
    one = upload(client, "", named(sample_files(), "one")).json()["blueprintModel"]
    upload(client, "", named(sample_files(), "two"))
    deleted = client.delete(f"{MODELS}/{one['id']}")
    assert deleted.status_code == 200 and deleted.content == b""
    assert_error(client.delete(f"{MODELS}/{one['id']}"), 404, "RESOURCE_NOT_FOUND", f"id({one['id']})")
    assert client.delete(f"{MODELS}/name/two/version/1.0.0").status_code == 200
    assert client.delete(f"{MODELS}/name/two/version/1.0.0").status_code == 200  # absent: still 200
    assert client.get(MODELS).json() == []
    assert stored_blobs(service) == []


def test_concurrent_uploads_of_distinct_and_same_names(client: httpx.Client, service: RunningService) -> None:
    distinct = [named(sample_files(), f"parallel-{i}") for i in range(6)]
    same = [named(sample_files(), "contended", tags=f"take-{i}") for i in range(6)]

    def send(archive: bytes) -> int:
        with service.client() as http:
            return upload(http, "", archive).status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = list(pool.map(send, distinct + same))
    assert statuses == [200] * 12
    models = [m["blueprintModel"] for m in client.get(MODELS).json()]
    expected = [f"parallel-{i}" for i in range(6)] + ["contended"]
    assert sorted(m["artifactName"] for m in models) == sorted(expected)
    contended = client.get(f"{MODELS}/download/by-name/contended/version/1.0.0").content
    assert contended in same
    assert len(stored_blobs(service)) == 7


def test_workflows_of_a_stored_blueprint(client: httpx.Client) -> None:
    upload(client, "", named(sample_files(), "flows", "1.2.3"))
    response = client.get(f"{MODELS}/workflows/blueprint-name/flows/version/1.2.3")
    assert response.status_code == 200
    assert response.json() == {
        "blueprintName": "flows",
        "version": "1.2.3",
        "workflows": ["resource-assignment", "config-deploy"],
    }
    assert_error(client.get(f"{MODELS}/workflows/blueprint-name/flows/version/9"), 404, "RESOURCE_NOT_FOUND")


def test_stored_archive_is_the_enriched_one_after_enrichandpublish(bootstrapped: httpx.Client) -> None:
    response = upload(bootstrapped, "/enrichandpublish", zip_bytes(unenriched_files()))
    assert response.status_code == 200, response.text
    model = response.json()["blueprintModel"]
    assert model["published"] == "Y"
    stored = unzip(bootstrapped.get(f"{MODELS}/download/{model['id']}").content)
    assert "Definitions/node_types.json" in stored


# --- where archives live: the database on PostgreSQL, files on SQLite ---------------------------


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def large_archive(name: str) -> bytes:
    """An archive of a few chunks (CHUNK_SIZE is 1 MiB), incompressible so it stays that large."""
    return named({**sample_files(), "Templates/noise.bin": os.urandom(3 * 1024 * 1024)}, name)


@pytest.mark.skipif(postgres_server_url() is None, reason="PostgreSQL only: SQLite keeps archives as files")
def test_on_postgresql_any_instance_serves_an_archive_and_no_file_is_written(
    make_settings: SettingsFactory, start_service: ServiceStarter, tmp_path: Path
) -> None:
    first = start_service("blueprints", make_settings(data_dir=tmp_path / "one"))
    second = start_service("blueprints", make_settings(data_dir=tmp_path / "two"))
    archive = large_archive("shared")
    with first.client() as one, second.client() as two:
        model = upload(one, "", archive).json()["blueprintModel"]
        assert two.get(f"{MODELS}/download/{model['id']}").content == archive
        assert two.get(f"{MODELS}/download/by-name/shared/version/1.0.0").content == archive
        assert len(stored_blobs(second)) == 1
        assert files_under(tmp_path / "one") == [] and files_under(tmp_path / "two") == []
        assert two.delete(f"{MODELS}/{model['id']}").status_code == 200
        assert_error(one.get(f"{MODELS}/download/{model['id']}"), 404, "RESOURCE_NOT_FOUND")
        assert stored_blobs(first) == []


@pytest.mark.skipif(postgres_server_url() is not None, reason="SQLite only")
def test_on_sqlite_archives_stay_files_in_the_data_directory(
    client: httpx.Client, service: RunningService
) -> None:
    archive = large_archive("local")
    model = upload(client, "", archive).json()["blueprintModel"]
    [blob] = files_under(service.settings.blob_dir)
    assert blob.read_bytes() == archive
    assert client.get(f"{MODELS}/download/{model['id']}").content == archive
