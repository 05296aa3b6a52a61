"""Malformed and hostile archives: a clear 400 (or 413/415), nothing stored, the service still answering."""

from __future__ import annotations

import io
import stat
import zipfile
from collections.abc import Callable

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from .conftest import (
    MODELS,
    SAMPLE_ENTRY,
    assert_error,
    blob_files,
    sample_files,
    upload,
    with_meta,
    zip_bytes,
)

UPLOAD_PATHS = ["", "/publish", "/enrich", "/enrichandpublish"]


def zip_with(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def sample_plus(name: zipfile.ZipInfo | str, data: bytes = b"x") -> bytes:
    return zip_with([*sample_files().items(), (name, data)])


def symlink_entry() -> zipfile.ZipInfo:
    info = zipfile.ZipInfo("Templates/link")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def entry_named(name: str) -> zipfile.ZipInfo:
    """A ZipInfo keeps the name as given (zipfile would strip a leading slash from a plain str)."""
    info = zipfile.ZipInfo("placeholder")
    info.filename = name
    return info


def files_without(name: str) -> dict[str, bytes]:
    files = sample_files()
    files.pop(name)
    return files


HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "not a zip": (lambda: b"PK\x03\x04 this is not really a zip", "not a zip archive"),
    "empty body": (lambda: b"", "not a zip archive"),
    "no TOSCA.meta": (
        lambda: zip_bytes(files_without("TOSCA-Metadata/TOSCA.meta")),
        "TOSCA-Metadata/TOSCA.meta",
    ),
    "dot-dot entry": (lambda: sample_plus("../../etc/evil"), "escapes the archive root"),
    "nested dot-dot": (lambda: sample_plus("Templates/../../evil"), "escapes the archive root"),
    "backslash dot-dot": (lambda: sample_plus("Templates\\..\\..\\evil"), "escapes the archive root"),
    "absolute path": (lambda: sample_plus(entry_named("/etc/passwd")), "absolute path"),
    "drive letter": (lambda: sample_plus("C:/windows/evil"), "names a drive"),
    "symlink": (lambda: sample_plus(symlink_entry(), b"/etc/passwd"), "symbolic link"),
    "bad JSON": (lambda: zip_bytes({**sample_files(), SAMPLE_ENTRY: b"{not json"}), "is not valid JSON"),
    "unknown key": (
        lambda: zip_bytes({**sample_files(), SAMPLE_ENTRY: b'{"topology_template": {}, "surprise": 1}'}),
        "unknown key(s) surprise",
    ),
    "missing entry definition": (
        lambda: zip_bytes(files_without(SAMPLE_ENTRY)),
        "couldn't get definition file",
    ),
    "missing meta key": (
        lambda: zip_bytes({**sample_files(), "TOSCA-Metadata/TOSCA.meta": b"Created-By: me\n"}),
        "lacks the key(s) Entry-Definitions, Template-Name, Template-Version, Template-Tags",
    ),
    "unknown template type": (
        lambda: zip_bytes(with_meta(sample_files(), Template_Type="SPREADSHEET")),
        "Unknown blueprint type(SPREADSHEET), It should be any one of these types"
        "[KOTLIN_DSL,GENERIC_SCRIPT, DEFAULT]",
    ),
    "kotlin dsl": (lambda: zip_bytes(with_meta(sample_files(), Template_Type="kotlin_dsl")), "KOTLIN_DSL"),
    "over-long name": (
        lambda: zip_bytes(with_meta(sample_files(), Template_Name="n" * 256)),
        "longer than 255",
    ),
    "name with a slash": (
        lambda: zip_bytes(with_meta(sample_files(), Template_Name="a/b")),
        "path separator",
    ),
    "over-long tags": (
        lambda: zip_bytes(with_meta(sample_files(), Template_Tags="t" * 513)),
        "longer than 512",
    ),
    "bad mapping file": (
        lambda: zip_bytes({**sample_files(), "Templates/baseconfig-mapping.json": b'[{"nom": "x"}]'}),
        "baseconfig-mapping.json",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archives_are_400_and_store_nothing(
    bootstrapped: httpx.Client, service: RunningService, case: str
) -> None:
    build, fragment = HOSTILE[case]
    # saving without validation reads only TOSCA.meta and the entry definition, not mapping files
    paths = UPLOAD_PATHS[1:] if case == "bad mapping file" else UPLOAD_PATHS
    for path in paths:
        response = upload(bootstrapped, path, build())
        assert_error(response, 400, "INVALID_REQUEST_FORMAT", fragment)
    assert bootstrapped.get(MODELS).json() == []
    assert blob_files(service) == []
    assert bootstrapped.get("/health").status_code == 200


def test_zip_bomb_by_ratio_is_refused(make_settings: SettingsFactory, start_service: ServiceStarter) -> None:
    service = start_service("blueprints", make_settings(archive_max_ratio=50))
    bomb = zip_with([*sample_files().items(), ("Templates/zeros.bin", b"\0" * (4 * 1024 * 1024))])
    with service.client() as client:
        assert_error(upload(client, "", bomb), 400, "INVALID_REQUEST_FORMAT", "compression ratio above 50")
        assert client.get(MODELS).json() == []


def test_zip_bomb_by_total_size_is_refused(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = start_service("blueprints", make_settings(archive_max_uncompressed_bytes=64 * 1024))
    bomb = zip_with([*sample_files().items(), ("Templates/big.txt", b"a" * (100 * 1024))])
    with service.client() as client:
        assert_error(upload(client, "", bomb), 400, "INVALID_REQUEST_FORMAT", "more than 65536")


def test_too_many_entries_are_refused(make_settings: SettingsFactory, start_service: ServiceStarter) -> None:
    service = start_service("blueprints", make_settings(archive_max_entries=12))
    crowd = zip_with([*sample_files().items(), *((f"Templates/{i}.txt", b"x") for i in range(5))])
    with service.client() as client:
        assert_error(upload(client, "", crowd), 400, "INVALID_REQUEST_FORMAT", "more than 12")


def test_archive_over_the_size_limit_is_413(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = start_service("blueprints", make_settings(archive_max_bytes=1024))
    with service.client() as client:
        assert_error(
            upload(client, "", zip_bytes(sample_files())), 413, "INVALID_REQUEST_FORMAT", "1024 bytes"
        )


def test_body_over_the_kernel_limit_is_413(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    service = start_service("blueprints", make_settings(max_body_bytes=1024))
    with service.client() as client:
        assert upload(client, "", zip_bytes(sample_files())).status_code == 413


@pytest.mark.parametrize("path", UPLOAD_PATHS)
def test_uploads_must_be_multipart_with_a_file_part(client: httpx.Client, path: str) -> None:
    archive = zip_bytes(sample_files())
    not_multipart = client.post(
        f"{MODELS}{path}", content=archive, headers={"content-type": "application/zip"}
    )
    assert_error(not_multipart, 415, "INVALID_FILE_EXTENSION", "multipart/form-data")
    wrong_part = client.post(f"{MODELS}{path}", files={"archive": ("cba.zip", archive)})
    assert_error(wrong_part, 400, "INVALID_REQUEST_FORMAT", "file")
    text_part = client.post(f"{MODELS}{path}", data={"file": "not a file"}, files={"other": ("x", b"x")})
    assert_error(text_part, 400, "INVALID_REQUEST_FORMAT")
