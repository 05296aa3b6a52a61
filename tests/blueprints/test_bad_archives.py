"""Malformed and hostile archives: a clear 400 (or 413/415), nothing stored, the service still answering."""

from __future__ import annotations

import io
import os
import shutil
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest

from netplatform.blueprints import create_app
from netplatform.blueprints.deps import OBJECTS
from netplatform.blueprints.starter_catalog import STARTER, StarterCatalog

from ..conftest import ADMIN, RunningService, ServiceStarter, SettingsFactory
from ..support.databases import migrate
from ..support.servers import LiveServer, http_client
from .conftest import (
    MODELS,
    SAMPLE,
    SAMPLE_ENTRY,
    assert_error,
    sample_files,
    stored_blobs,
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
    assert stored_blobs(service) == []
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


# --- archives whose zip headers lie about sizes (crafted byte by byte) ------------------------

LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
CENTRAL_HEADER = struct.Struct("<4s4B4HL2L5H2L")
END_RECORD = struct.Struct("<4s4H2LH")
BOMB_NAME = "Templates/zeros.bin"
GIB_IN_MIB = 1024


@dataclass(frozen=True)
class Entry:
    """One member: its compressed bytes and what each header claims about it."""

    name: str
    stream: bytes
    crc: int
    local_size: int
    central_size: int
    method: int = zipfile.ZIP_DEFLATED


def honest(name: str, content: bytes) -> Entry:
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    stream = packer.compress(content) + packer.flush()
    return Entry(name, stream, zlib.crc32(content), len(content), len(content))


def zeros_stream(mib: int) -> bytes:
    """A raw deflate stream of ``mib`` MiB of zeros, about 1 KiB per MiB, built without inflating it:
    after a full flush the compressor starts afresh, so every MiB compresses to the same block."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = packer.compress(bytes(1024 * 1024)) + packer.flush(zlib.Z_FULL_FLUSH)
    return block * mib + packer.flush()


def crafted_zip(entries: list[Entry]) -> bytes:
    """The zip bytes of ``entries``, each header saying what the entry tells it to."""
    body, central = bytearray(), bytearray()
    for entry in entries:
        name = entry.name.encode()
        common = (0, entry.method, 0, 0x5821, entry.crc, len(entry.stream))
        central += CENTRAL_HEADER.pack(
            b"PK\x01\x02", 20, 3, 20, 0, *common, entry.central_size, len(name), 0, 0, 0, 0, 0o644 << 16,
            len(body),
        ) + name  # fmt: skip
        body += LOCAL_HEADER.pack(b"PK\x03\x04", 20, 0, *common, entry.local_size, len(name), 0)
        body += name + entry.stream
    end = END_RECORD.pack(b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), len(body), 0)
    return bytes(body + central + end)


def with_bomb(local_size: int, central_size: int, mib: int = GIB_IN_MIB) -> bytes:
    """The sample plus an entry inflating to ``mib`` MiB of zeros, its headers declaring the sizes given."""
    bomb = Entry(BOMB_NAME, zeros_stream(mib), zlib.crc32(bytes(1000)), local_size, central_size)
    return crafted_zip([*(honest(name, data) for name, data in sample_files().items()), bomb])


LIES: dict[str, tuple[Callable[[], bytes], str]] = {
    # both headers declare 1000 bytes: refused at the first MiB past the declared size
    "both headers": (
        lambda: with_bomb(1000, 1000),
        "inflates to more than the 1000 bytes its header declares",
    ),
    # the central directory (what readers use) lies, the local header tells the truth
    "central header": (lambda: with_bomb(1 << 30, 1000), "more than the 1000 bytes its header declares"),
    # the local header lies, the central directory declares the gigabyte: the measured ratio stops it
    "local header": (lambda: with_bomb(1000, 1 << 30), "compression ratio above 200"),
}


@pytest.mark.parametrize("lie", sorted(LIES))
@pytest.mark.parametrize("path", UPLOAD_PATHS)
def test_a_gigabyte_behind_lying_headers_is_refused_at_the_bound_on_every_path(
    bootstrapped: httpx.Client, service: RunningService, path: str, lie: str
) -> None:
    build, fragment = LIES[lie]
    # The message names the bound that stopped the reading, long before a gigabyte.
    assert_error(upload(bootstrapped, path, build()), 400, "INVALID_REQUEST_FORMAT", BOMB_NAME, fragment)
    assert bootstrapped.get(MODELS).json() == []
    assert stored_blobs(service) == []


def test_an_entry_smaller_than_its_header_says_is_refused(
    bootstrapped: httpx.Client, service: RunningService
) -> None:
    lying = replace(honest(BOMB_NAME, bytes(500)), local_size=1000, central_size=1000)
    short = crafted_zip([*(honest(name, data) for name, data in sample_files().items()), lying])
    for path in UPLOAD_PATHS:
        assert_error(
            upload(bootstrapped, path, short),
            400,
            "INVALID_REQUEST_FORMAT",
            "inflates to 500 bytes, not the 1000",
        )
    assert bootstrapped.get(MODELS).json() == []
    assert stored_blobs(service) == []


def test_measured_total_is_bounded_whatever_the_headers_say(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    limits = {"archive_max_uncompressed_bytes": 8 * 1024 * 1024, "archive_max_ratio": 1_000_000}
    service = start_service("blueprints", make_settings(**limits))
    with service.client() as client:
        bomb = with_bomb(1 << 30, 1 << 30, mib=64)  # declared honestly: only the measured total stops it
        assert_error(upload(client, "", bomb), 400, "INVALID_REQUEST_FORMAT", "more than 8388608 bytes")
        assert client.get(MODELS).json() == []


def test_crafted_honest_archives_are_accepted(bootstrapped: httpx.Client) -> None:
    """The crafting is sound: the same bytes with honest headers are an ordinary archive."""
    files = [honest(name, data) for name, data in sample_files().items()]
    archive = crafted_zip([*files, honest("Templates/noise.bin", os.urandom(2 * 1024 * 1024))])
    assert upload(bootstrapped, "", archive).status_code == 200
    assert upload(bootstrapped, "/publish", archive).status_code == 200


def test_bootstrap_holds_starter_blueprints_to_the_archive_bounds(
    make_settings: SettingsFactory, tmp_path: Path
) -> None:
    """A starter blueprint over the bounds is skipped (logged); the others are loaded."""
    root = tmp_path / "starter"
    shutil.copytree(STARTER, root)
    huge = root / "blueprints" / "huge-cfg"
    shutil.copytree(SAMPLE, huge)
    meta = huge / "TOSCA-Metadata" / "TOSCA.meta"
    meta.write_text(meta.read_text().replace("Template-Name: edge-router-cfg", "Template-Name: huge-cfg"))
    (huge / "Templates" / "big.txt").write_bytes(os.urandom(512 * 1024))
    settings = make_settings(archive_max_uncompressed_bytes=256 * 1024)
    migrate(settings)
    app = create_app(settings)
    objects = OBJECTS.of(app)
    starter = StarterCatalog(objects.blueprint_models, objects.model_types, objects.dictionaries, root)
    OBJECTS.install(app, replace(objects, starter_catalog=starter))
    with LiveServer(app) as server, http_client(server.url, auth=ADMIN) as client:
        kinds = {"loadModelType": True, "loadResourceDictionary": True, "loadCBA": True}
        assert client.post(f"{MODELS}/bootstrap", json=kinds).status_code == 200
        names = [m["blueprintModel"]["artifactName"] for m in client.get(MODELS).json()]
        assert names == ["edge-router-cfg"]
