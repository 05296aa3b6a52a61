"""Zip archives read safely, in memory, member by member; nothing is ever extracted to disk.

An uploaded archive is refused (400) before any member is used when it is not a zip, when an
entry could escape an extraction root (absolute paths, ``..``, drive letters), when an entry is
a symbolic link or encrypted, or when it breaks the bounds (entry count, total uncompressed
size, compression ratio). The sizes in the zip headers are not trusted (a bomb declares small
ones): every entry is inflated once, up front, counting the bytes it actually produces, and
reading stops as soon as a bound is passed. An entry whose real size or CRC differs from what
its header says is refused too, so later reads through :mod:`zipfile` (which stops at the
declared size) see exactly what was measured.
"""

from __future__ import annotations

import io
import json
import shutil
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import IO, Any

from ...settings import Settings
from ...web.errors import BadRequest

_UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError)
"""What a corrupt, truncated, encrypted or exotically compressed member raises when read."""

# Entries this small cannot make a bomb, whatever their ratio (a kilobyte of spaces compresses 1000:1).
_RATIO_FLOOR_BYTES = 1024 * 1024
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # signature ... name length, extra field length
_LOCAL_SIGNATURE = b"PK\x03\x04"
_READ_STEP = 64 * 1024  # compressed bytes read at a time
_INFLATE_STEP = 1024 * 1024  # most bytes one step may inflate to, so a bound is checked often


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
        _measure(source, self._zip.infolist(), limits)

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
    for info in infos:
        _refuse_unsafe_entry(info)
        if info.is_dir():
            continue
        if info.filename in files:
            raise MalformedArchive(f"archive entry {info.filename} appears twice")
        files[info.filename] = info
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


def _measure(source: IO[bytes], infos: list[zipfile.ZipInfo], limits: ArchiveLimits) -> None:
    """Inflate every entry (folders too: a download would carry them), counting what comes out."""
    produced = consumed = 0
    for info in infos:
        inflated, compressed = _inflate_entry(source, info, limits, limits.max_uncompressed_bytes - produced)
        produced += inflated
        consumed += compressed
    if produced > _RATIO_FLOOR_BYTES and produced > limits.max_ratio * max(consumed, 1):
        raise MalformedArchive(f"archive compression ratio is above {limits.max_ratio}")


def _inflate_entry(
    source: IO[bytes], info: zipfile.ZipInfo, limits: ArchiveLimits, room: int
) -> tuple[int, int]:
    """The bytes one entry really inflates to and the compressed bytes it used; refused past a bound.

    At most the declared compressed size is read (as :mod:`zipfile` does), and each step
    inflates at most _INFLATE_STEP bytes, so a bomb costs no more than the bound it breaks.
    """
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise MalformedArchive(
            f"archive entry {info.filename} uses compression method {info.compress_type}; "
            "only stored and deflated entries are accepted"
        )
    source.seek(_data_offset(source, info))
    inflater = _Inflater(info)
    left = info.compress_size
    produced = crc = 0
    while not inflater.done(left):
        step = source.read(min(_READ_STEP, left)) if not inflater.pending else b""
        if not step and not inflater.pending:
            break
        left -= len(step)
        data = inflater.inflate(step)
        produced += len(data)
        crc = zlib.crc32(data, crc)
        _refuse_over_bound(info, produced, max(info.compress_size, 1), limits, room)
    consumed = info.compress_size - left - inflater.unused
    if not inflater.finished(left):
        raise MalformedArchive(f"archive entry {info.filename} cannot be read (its data ends early)")
    if produced > _RATIO_FLOOR_BYTES and produced > limits.max_ratio * max(consumed, 1):
        raise MalformedArchive(
            f"archive entry {info.filename} has a compression ratio above {limits.max_ratio}"
        )
    if produced != info.file_size:
        raise MalformedArchive(
            f"archive entry {info.filename} inflates to {produced} bytes, not the {info.file_size} "
            "its header declares"
        )
    if crc != info.CRC:
        raise MalformedArchive(f"archive entry {info.filename} fails its CRC check")
    return produced, consumed


def _refuse_over_bound(
    info: zipfile.ZipInfo, produced: int, compressed: int, limits: ArchiveLimits, room: int
) -> None:
    if produced > info.file_size:  # the header lies: refused at once, however far it would go
        raise MalformedArchive(
            f"archive entry {info.filename} inflates to more than the {info.file_size} bytes "
            "its header declares"
        )
    if produced > room:
        raise MalformedArchive(
            f"archive inflates to more than {limits.max_uncompressed_bytes} bytes "
            f"(reading stopped in entry {info.filename})"
        )
    if produced > _RATIO_FLOOR_BYTES and produced > limits.max_ratio * compressed:
        raise MalformedArchive(
            f"archive entry {info.filename} has a compression ratio above {limits.max_ratio}"
        )


def _data_offset(source: IO[bytes], info: zipfile.ZipInfo) -> int:
    """Where an entry's data starts: after its local header, whose own lengths place it."""
    source.seek(info.header_offset)
    header = source.read(_LOCAL_HEADER.size)
    if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
        raise MalformedArchive(f"archive entry {info.filename} has no local header")
    *_, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    return int(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)


class _Inflater:
    """Stored or deflated data, inflated a bounded step at a time."""

    def __init__(self, info: zipfile.ZipInfo) -> None:
        deflated = info.compress_type == zipfile.ZIP_DEFLATED
        self._zlib = zlib.decompressobj(-zlib.MAX_WBITS) if deflated else None
        self._name = info.filename
        self.pending = b""

    def inflate(self, data: bytes) -> bytes:
        if self._zlib is None:
            return data
        try:
            out = self._zlib.decompress(self.pending + data, _INFLATE_STEP)
        except zlib.error as error:
            raise MalformedArchive(f"archive entry {self._name} cannot be read ({error})") from error
        self.pending = self._zlib.unconsumed_tail
        return out

    @property
    def unused(self) -> int:
        """Compressed bytes read but not part of the entry's data."""
        return len(self.pending) + (len(self._zlib.unused_data) if self._zlib else 0)

    def done(self, left: int) -> bool:
        return self.finished(left) or (left <= 0 and not self.pending)

    def finished(self, left: int) -> bool:
        """The entry's data is complete: the deflate stream ended, or all stored bytes were read."""
        return self._zlib.eof if self._zlib is not None else left <= 0
