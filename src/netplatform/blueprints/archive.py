"""Zip archives read safely, in memory, member by member; nothing is ever extracted to disk.

An uploaded archive is refused (400) before any member is read when it is not a zip, when an
entry could escape an extraction root (absolute paths, ``..``, drive letters), when an entry is
a symbolic link, or when its declared sizes break the bounds (entry count, total uncompressed
size, compression ratio). The declared sizes are a real bound: :mod:`zipfile` never inflates a
member past its declared size (and checks its CRC), so checking them up front is enough.
"""

from __future__ import annotations

import io
import json
import shutil
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import IO, Any

from ..settings import Settings
from ..web.errors import BadRequest

_UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError)
"""What a corrupt, truncated, encrypted or exotically compressed member raises when read."""

# Entries this small cannot make a bomb, whatever their ratio (a kilobyte of spaces compresses 1000:1).
_RATIO_FLOOR_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ArchiveLimits:
    max_bytes: int
    max_uncompressed_bytes: int
    max_ratio: int
    max_entries: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ArchiveLimits:
        return cls(
            max_bytes=settings.archive_max_bytes,
            max_uncompressed_bytes=settings.archive_max_uncompressed_bytes,
            max_ratio=settings.archive_max_ratio,
            max_entries=settings.archive_max_entries,
        )


class MalformedArchive(BadRequest):
    """The upload is not a safe, readable zip archive."""


class Archive:
    """A checked zip archive; members are read on demand."""

    def __init__(self, source: IO[bytes], limits: ArchiveLimits) -> None:
        try:
            self._zip = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as error:
            raise MalformedArchive(f"the uploaded file is not a zip archive ({error})") from error
        self._infos = _checked_entries(self._zip.infolist(), limits)

    @classmethod
    def from_bytes(cls, data: bytes, limits: ArchiveLimits) -> Archive:
        return cls(io.BytesIO(data), limits)

    @property
    def names(self) -> list[str]:
        """Every file (not folder) in the archive, in archive order."""
        return list(self._infos)

    def has(self, name: str) -> bool:
        return name in self._infos

    def read(self, name: str) -> bytes:
        info = self._infos.get(name)
        if info is None:
            raise KeyError(name)
        try:
            return self._zip.read(info)
        except _UNREADABLE as error:
            raise MalformedArchive(f"archive entry {name} cannot be read ({error})") from error

    def read_text(self, name: str) -> str:
        try:
            return self.read(name).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise MalformedArchive(f"archive entry {name} is not UTF-8 text") from error

    def read_json(self, name: str) -> Any:
        text = self.read_text(name)
        try:
            return json.loads(text)
        except (ValueError, RecursionError) as error:
            raise MalformedArchive(f"archive entry {name} is not valid JSON: {error}") from error

    def rewritten(self, *, drop: Callable[[str], bool], add: dict[str, bytes]) -> bytes:
        """A new zip: every file kept unless dropped or replaced, then the added files."""
        output = io.BytesIO()
        with zipfile.ZipFile(output, "w", compression=zipfile.ZIP_DEFLATED) as target:
            for name, info in self._infos.items():
                if drop(name) or name in add:
                    continue
                try:
                    with self._zip.open(info) as source, target.open(_fresh_info(name, info), "w") as sink:
                        shutil.copyfileobj(source, sink)
                except _UNREADABLE as error:
                    raise MalformedArchive(f"archive entry {name} cannot be read ({error})") from error
            for name, data in add.items():
                target.writestr(_fresh_info(name), data)
        return output.getvalue()


def zip_tree(files: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip of (archive name, content) pairs, as an upload would carry it."""
    output = io.BytesIO()
    with zipfile.ZipFile(output, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for name, data in files:
            target.writestr(_fresh_info(name), data)
    return output.getvalue()


def _fresh_info(name: str, like: zipfile.ZipInfo | None = None) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=like.date_time if like else (2024, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def _checked_entries(infos: list[zipfile.ZipInfo], limits: ArchiveLimits) -> dict[str, zipfile.ZipInfo]:
    if len(infos) > limits.max_entries:
        raise MalformedArchive(f"archive has {len(infos)} entries, more than {limits.max_entries}")
    files: dict[str, zipfile.ZipInfo] = {}
    total = compressed = 0
    for info in infos:
        _refuse_unsafe_entry(info)
        _refuse_bomb_entry(info, limits)
        total += info.file_size
        compressed += info.compress_size
        if info.is_dir():
            continue
        if info.filename in files:
            raise MalformedArchive(f"archive entry {info.filename} appears twice")
        files[info.filename] = info
    if total > limits.max_uncompressed_bytes:
        raise MalformedArchive(
            f"archive inflates to {total} bytes, more than {limits.max_uncompressed_bytes}"
        )
    if total > _RATIO_FLOOR_BYTES and total > limits.max_ratio * max(compressed, 1):
        raise MalformedArchive(f"archive compression ratio is above {limits.max_ratio}")
    return files


def _refuse_unsafe_entry(info: zipfile.ZipInfo) -> None:
    name = info.filename
    path = PurePosixPath(name.replace("\\", "/"))
    if not name or "\x00" in name or path.is_absolute() or name.startswith(("/", "\\")):
        raise MalformedArchive(f"archive entry {name!r} has an absolute path")
    if path.parts and len(path.parts[0]) == 2 and path.parts[0][1] == ":":
        raise MalformedArchive(f"archive entry {name!r} names a drive")
    if ".." in path.parts:
        raise MalformedArchive(f"archive entry {name!r} escapes the archive root")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise MalformedArchive(f"archive entry {name!r} is a symbolic link")
    if info.flag_bits & 0x1:
        raise MalformedArchive(f"archive entry {name!r} is encrypted")


def _refuse_bomb_entry(info: zipfile.ZipInfo, limits: ArchiveLimits) -> None:
    if info.file_size > limits.max_uncompressed_bytes:
        raise MalformedArchive(
            f"archive entry {info.filename} inflates to {info.file_size} bytes, "
            f"more than {limits.max_uncompressed_bytes}"
        )
    if info.file_size > _RATIO_FLOOR_BYTES and info.file_size > limits.max_ratio * max(info.compress_size, 1):
        raise MalformedArchive(
            f"archive entry {info.filename} has a compression ratio above {limits.max_ratio}"
        )
