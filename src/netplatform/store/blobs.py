"""Files on disk that outlive the request: archives, published files.

A blob is written to a temporary file in the blob directory, fsynced, renamed into place and
its directory fsynced, so once :meth:`BlobWriter.commit` returns the bytes survive a crash, and
a writer that fails or is abandoned leaves nothing behind. Blob names are generated here, never
taken from a client, so no request can steer a write outside the directory.

A blob belongs to the one database row that names it; whoever deletes the row deletes the blob.
:class:`BlobStorage` is what a service that only stores, opens and deletes whole blobs needs;
:mod:`.database_blobs` offers the same in the database, for blobs every instance must read.
"""

from __future__ import annotations

import ctypes
import os
import secrets
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO, Protocol

import anyio

CHUNK_SIZE = 1024 * 1024
WRITE_BATCH_BYTES = 1024 * 1024


@dataclass(frozen=True)
class BlobRef:
    """A stored blob: its generated name and its size in bytes (no digest: nothing reads one, and
    hashing every byte cost more CPU than writing it)."""

    name: str
    size: int


class BlobStorage(Protocol):
    """Whole blobs, durable once put; ``open`` raises FileNotFoundError for a deleted blob."""

    def put_file(self, content: BinaryIO) -> BlobRef: ...

    def open(self, name: str) -> IO[bytes]: ...

    def exists(self, name: str) -> bool: ...

    def delete(self, name: str) -> None: ...


class BlobTooLarge(Exception):
    """The stream went past the writer's size limit (the partial blob is already removed)."""


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, name: str) -> Path:
        if not is_blob_name(name):
            raise ValueError(f"not a blob name: {name!r}")
        return self.root / name[:2] / name

    def writer(self, max_bytes: int | None = None) -> BlobWriter:
        return BlobWriter(self, max_bytes)

    def put_file(self, content: BinaryIO) -> BlobRef:
        """Copy a readable file object into a durable blob, a chunk at a time."""
        with self.writer() as writer:
            while chunk := content.read(CHUNK_SIZE):
                writer.write(chunk)
            return writer.commit()

    async def put_stream(self, chunks: AsyncIterable[bytes], max_bytes: int | None = None) -> BlobRef:
        """Stream chunks to a durable blob; memory use does not grow with the size of the stream.

        File work runs in worker threads, never on the event loop. Chunks (about 64 KiB from an
        HTTP server) are gathered into batches of up to WRITE_BATCH_BYTES before each write, so a
        100 MiB body costs a hundred thread hops rather than a few thousand, and a body that fits
        in one batch is written and made durable in a single hop.
        """
        iterator = aiter(chunks)
        first, ended = await _gather_batch(iterator)
        if ended:
            return await anyio.to_thread.run_sync(self._put_bytes, first, max_bytes)
        with await anyio.to_thread.run_sync(self.writer, max_bytes) as writer:
            batch = first
            while batch:
                await anyio.to_thread.run_sync(writer.write, batch)
                batch, _ = await _gather_batch(iterator)
            return await anyio.to_thread.run_sync(writer.commit)

    def _put_bytes(self, data: bytes, max_bytes: int | None) -> BlobRef:
        with self.writer(max_bytes) as writer:
            writer.write(data)
            return writer.commit()

    def open(self, name: str) -> IO[bytes]:
        """The blob for reading; an open file keeps its bytes even if the blob is deleted meanwhile."""
        return self.path(name).open("rb")

    def exists(self, name: str) -> bool:
        return self.path(name).is_file()

    def delete(self, name: str) -> None:
        self.path(name).unlink(missing_ok=True)


async def _gather_batch(chunks: AsyncIterator[bytes]) -> tuple[bytes, bool]:
    """Up to about WRITE_BATCH_BYTES of the stream, and whether the stream ended."""
    pending: list[bytes] = []
    size = 0
    while size < WRITE_BATCH_BYTES:
        try:
            chunk = await anext(chunks)
        except StopAsyncIteration:
            return b"".join(pending), True
        pending.append(chunk)
        size += len(chunk)
    return b"".join(pending), False


class BlobWriter:
    """Context manager: write, then commit; leaving without commit removes the partial file."""

    def __init__(self, store: BlobStore, max_bytes: int | None) -> None:
        self.store = store
        self.max_bytes = max_bytes
        self.name = new_blob_name()
        self.final_path = store.path(self.name)
        if not self.final_path.parent.is_dir():
            self.final_path.parent.mkdir(parents=True, exist_ok=True)
            _fsync_directory(store.root)  # the new folder's entry must survive a crash too
        self.temp_path = self.final_path.with_name(f".{self.name}.partial")
        self._handle = open(self.temp_path, "wb")  # noqa: SIM115 - closed in commit/__exit__
        self._size = 0
        self._committed = False

    def __enter__(self) -> BlobWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._committed:
            self._handle.close()
            self.temp_path.unlink(missing_ok=True)

    def write(self, data: bytes) -> None:
        start = self._size
        self._size += len(data)
        if self.max_bytes is not None and self._size > self.max_bytes:
            raise BlobTooLarge(f"more than {self.max_bytes} bytes")
        self._handle.write(data)
        if len(data) >= WRITE_BATCH_BYTES // 2:  # a batch of a large blob, not a small blob's body
            self._handle.flush()
            _start_writeback(self._handle.fileno(), start, len(data))

    def commit(self) -> BlobRef:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
        os.replace(self.temp_path, self.final_path)
        _fsync_directory(self.final_path.parent)
        self._committed = True
        return BlobRef(self.name, self._size)


def _writeback_starter() -> Callable[[int, int, int], None]:
    """Linux's ``sync_file_range(SYNC_FILE_RANGE_WRITE)``: start writing a range of a file to disk
    and return at once. Started after each batch of a large blob, the disk writes while the rest
    arrives, and the fsync of the commit (which alone makes the blob durable) waits for the tail
    only: for 100 MiB, a few ms instead of 35 to 50. Elsewhere (or if it fails) the fsync does it all.
    """
    try:
        call = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError):
        return lambda descriptor, offset, length: None
    call.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    call.restype = ctypes.c_int

    def start(descriptor: int, offset: int, length: int) -> None:
        call(descriptor, offset, length, _SYNC_FILE_RANGE_WRITE)  # a failure leaves it to the fsync

    return start


_SYNC_FILE_RANGE_WRITE = 2
_start_writeback = _writeback_starter()


def _fsync_directory(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def new_blob_name() -> str:
    """A fresh blob name: 32 random hex digits, never taken from a client."""
    return secrets.token_hex(16)


def is_blob_name(name: str) -> bool:
    return len(name) == 32 and all(c in "0123456789abcdef" for c in name)
