"""The body a subscriber gets for a queued file: the spooled bytes, nothing, or the gunzipped bytes.

Decompression (subscriptions with ``decompress``) goes to a scratch file in bounded memory
before the attempt starts, so the outcome (``Decompression_Status``: ``SUCCESS``,
``UNSUPPORTED_FORMAT`` or ``FAILURE``) and the length are known before the first byte is sent.
It is bounded too (issue 17: one small published file must not fill the disk): the bytes actually
produced are counted, never the sizes the gzip trailer declares, and past the absolute bound or the
ratio to the compressed size the file is refused for that subscription (``Payload.refusal``).
"""

from __future__ import annotations

import gzip
import io
import os
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ...store.blobs import BlobStore
from ..repository.queue import DeliveryJob

GZIP_MAGIC = b"\x1f\x8b"
DECOMPRESSION_STATUS = "Decompression_Status"
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class DecompressionLimits:
    """How much a ``decompress`` subscription's file may inflate to.

    ``max_bytes`` bounds the output; ``max_ratio`` bounds it relative to the compressed size, except
    that outputs up to ``ratio_free_bytes`` are always allowed (small, very repetitive files such
    as empty reports compress far better than any sensible ratio).
    """

    max_ratio: float = 100.0
    max_bytes: int = 1 << 30
    ratio_free_bytes: int = 1 << 20

    def allowed_output(self, compressed_bytes: int) -> int:
        by_ratio = max(self.ratio_free_bytes, int(self.max_ratio * compressed_bytes))
        return min(self.max_bytes, by_ratio)

    def describe(self, compressed_bytes: int) -> str:
        return (
            f"decompressed size exceeds {self.allowed_output(compressed_bytes)} bytes "
            f"(limits: {self.max_bytes} bytes, ratio {self.max_ratio:g} to the {compressed_bytes} "
            "compressed bytes)"
        )


class _OverLimit(Exception):
    """The output passed the allowed size; the scratch file is already removed."""


@dataclass(frozen=True)
class Payload:
    """What to send: ``data`` (a body kept in the file row) or ``path`` (None for both: empty body),
    its length, the file name in the URL, extra headers."""

    path: Path | None
    length: int
    file_name: str
    extra_headers: dict[str, str] = field(default_factory=dict)
    scratch: bool = False
    transformed: bool = False
    refusal: str | None = None  # why the file is not delivered to this subscription at all
    data: bytes | None = None

    def discard(self) -> None:
        """Remove a scratch file made for this payload."""
        if self.scratch and self.path is not None:
            self.path.unlink(missing_ok=True)


def prepare_payload(
    job: DeliveryJob, blobs: BlobStore, scratch_dir: Path, limits: DecompressionLimits
) -> Payload:
    """Blocking (file reads, decompression): run it in a worker thread, unless
    :func:`prepared_in_memory` answers for the job."""
    spooled = job.file
    in_memory = prepared_in_memory(job)
    if in_memory is not None:
        return in_memory
    source: Path | bytes = spooled.body if spooled.body is not None else blobs.path(spooled.blob or "")
    if not job.subscription.fields.decompress:
        return _unchanged(source, spooled.content_length, spooled.file_id, {})
    if not _is_gzip(source):
        unsupported = {DECOMPRESSION_STATUS: "UNSUPPORTED_FORMAT"}
        return _unchanged(source, spooled.content_length, spooled.file_id, unsupported)
    try:
        target = _gunzip(source, scratch_dir, limits.allowed_output(spooled.content_length))
    except _OverLimit:
        refusal = limits.describe(spooled.content_length)
        return Payload(None, spooled.content_length, spooled.file_id, refusal=refusal)
    if target is None:
        return _unchanged(source, spooled.content_length, spooled.file_id, {DECOMPRESSION_STATUS: "FAILURE"})
    return Payload(
        target,
        target.stat().st_size,
        spooled.file_id.replace(".gz", ""),
        {DECOMPRESSION_STATUS: "SUCCESS"},
        scratch=True,
        transformed=True,
    )


def prepared_in_memory(job: DeliveryJob) -> Payload | None:
    """The payload when it needs no file work (no body, or a body kept in the row and sent as it is);
    None when :func:`prepare_payload` must run in a worker thread."""
    spooled = job.file
    fields = job.subscription.fields
    if spooled.method != "PUT" or fields.metadata_only or spooled.content_length == 0:
        return Payload(None, 0, spooled.file_id)
    if spooled.body is None and spooled.blob is None:
        return Payload(None, 0, spooled.file_id)
    if spooled.body is None or fields.decompress:
        return None
    return Payload(None, spooled.content_length, spooled.file_id, data=spooled.body)


def _unchanged(source: Path | bytes, length: int, file_id: str, headers: dict[str, str]) -> Payload:
    """The stored body as it is, with ``headers`` telling why it was not decompressed."""
    if isinstance(source, bytes):
        return Payload(None, length, file_id, headers, data=source)
    return Payload(source, length, file_id, headers)


def _opened(source: Path | bytes) -> BinaryIO:
    """The stored body to read from (the caller closes it)."""
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")


def _is_gzip(source: Path | bytes) -> bool:
    with _opened(source) as handle:
        return handle.read(2) == GZIP_MAGIC


def _gunzip(source: Path | bytes, scratch_dir: Path, allowed: int) -> Path | None:
    """Decompress ``source`` (every gzip member) into a new scratch file; None when it is corrupt,
    :class:`_OverLimit` as soon as it would produce more than ``allowed`` bytes."""
    scratch_dir.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(dir=scratch_dir, prefix="gunzip-")
    target = Path(name)
    try:
        with (
            _opened(source) as raw,
            gzip.GzipFile(fileobj=raw, mode="rb") as reader,
            os.fdopen(descriptor, "wb") as writer,
        ):
            _copy_bounded(reader, writer, allowed)
        return target
    except (OSError, EOFError, zlib.error):
        target.unlink(missing_ok=True)
        return None
    except _OverLimit:
        target.unlink(missing_ok=True)
        raise


def _copy_bounded(reader: io.BufferedIOBase, writer: BinaryIO, allowed: int) -> None:
    """Copy at most ``allowed`` bytes; asking for one more than is left tells an over-long stream
    without ever holding or writing more than a chunk past the bound."""
    produced = 0
    while chunk := reader.read(min(_CHUNK, allowed - produced + 1)):
        produced += len(chunk)
        if produced > allowed:
            raise _OverLimit
        writer.write(chunk)
