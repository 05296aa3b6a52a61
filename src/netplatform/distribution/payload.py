"""The body a subscriber gets for a queued file: the spooled bytes, nothing, or the gunzipped bytes.

Decompression (subscriptions with ``decompress``) goes to a scratch file in bounded memory
before the attempt starts, so the outcome (``Decompression_Status``: ``SUCCESS``,
``UNSUPPORTED_FORMAT`` or ``FAILURE``) and the length are known before the first byte is sent.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..store.blobs import BlobStore
from .repository.queue import DeliveryJob

GZIP_MAGIC = b"\x1f\x8b"
DECOMPRESSION_STATUS = "Decompression_Status"
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Payload:
    """What to send: ``path`` (None: empty body), its length, the file name in the URL, extra headers."""

    path: Path | None
    length: int
    file_name: str
    extra_headers: dict[str, str] = field(default_factory=dict)
    scratch: bool = False
    transformed: bool = False

    def discard(self) -> None:
        """Remove a scratch file made for this payload."""
        if self.scratch and self.path is not None:
            self.path.unlink(missing_ok=True)


def prepare_payload(job: DeliveryJob, blobs: BlobStore, scratch_dir: Path) -> Payload:
    """Blocking (file reads, decompression): run it in a worker thread."""
    spooled = job.file
    fields = job.subscription.fields
    if spooled.method != "PUT" or fields.metadata_only or spooled.blob is None or spooled.content_length == 0:
        return Payload(None, 0, spooled.file_id)
    source = blobs.path(spooled.blob)
    if not fields.decompress:
        return Payload(source, spooled.content_length, spooled.file_id)
    if not _is_gzip(source):
        return Payload(
            source, spooled.content_length, spooled.file_id, {DECOMPRESSION_STATUS: "UNSUPPORTED_FORMAT"}
        )
    target = _gunzip(source, scratch_dir)
    if target is None:
        return Payload(source, spooled.content_length, spooled.file_id, {DECOMPRESSION_STATUS: "FAILURE"})
    return Payload(
        target,
        target.stat().st_size,
        spooled.file_id.replace(".gz", ""),
        {DECOMPRESSION_STATUS: "SUCCESS"},
        scratch=True,
        transformed=True,
    )


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def _gunzip(source: Path, scratch_dir: Path) -> Path | None:
    """Decompress ``source`` (every gzip member) into a new scratch file; None when it is corrupt."""
    scratch_dir.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(dir=scratch_dir, prefix="gunzip-")
    target = Path(name)
    try:
        with gzip.open(source, "rb") as reader, os.fdopen(descriptor, "wb") as writer:
            shutil.copyfileobj(reader, writer, _CHUNK)
        return target
    except (OSError, EOFError, zlib.error):
        target.unlink(missing_ok=True)
        return None
