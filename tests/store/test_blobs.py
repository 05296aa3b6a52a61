from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from netplatform.store.blobs import BlobStore, BlobTooLarge


def leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_put_and_read_back(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    ref = store.put_file(io.BytesIO(b"hello"))
    assert store.path(ref.name).read_bytes() == b"hello"
    assert ref.size == 5
    store.delete(ref.name)
    assert not store.exists(ref.name)


def test_streamed_put_keeps_every_byte(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    chunk = bytes(range(256)) * 4096

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(8):
            yield chunk

    ref = asyncio.run(store.put_stream(chunks()))
    assert ref.size == len(chunk) * 8
    assert store.path(ref.name).read_bytes() == chunk * 8


def test_abandoned_and_oversized_writes_leave_nothing(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    with store.writer() as writer:
        writer.write(b"partial")
    with pytest.raises(BlobTooLarge), store.writer(max_bytes=4) as writer:
        writer.write(b"too large")
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["../etc/passwd", "a" * 31, "/abs", "G" * 32])
def test_names_from_outside_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError):
        BlobStore(tmp_path).path(name)


def test_streamed_put_batches_small_chunks_into_few_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from netplatform.store import blobs as blob_module

    writes: list[int] = []
    original = blob_module.BlobWriter.write

    def counting_write(self: blob_module.BlobWriter, data: bytes) -> None:
        writes.append(len(data))
        original(self, data)

    monkeypatch.setattr(blob_module.BlobWriter, "write", counting_write)

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(64):
            yield b"x" * 65536  # 4 MiB in 64 KiB pieces, as an HTTP server hands them over

    ref = asyncio.run(BlobStore(tmp_path).put_stream(chunks()))
    assert ref.size == 4 * 1024 * 1024
    assert writes == [1024 * 1024] * 4


def test_an_opened_blob_keeps_its_bytes_after_delete(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    ref = store.put_file(io.BytesIO(b"kept"))
    with store.open(ref.name) as opened:
        store.delete(ref.name)
        assert opened.read() == b"kept"
    with pytest.raises(FileNotFoundError):
        store.open(ref.name)
