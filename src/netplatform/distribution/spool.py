"""Spooling a publish body to a durable blob while it arrives, in bounded memory."""

from __future__ import annotations

from collections.abc import AsyncIterable

import anyio

from ..store.blobs import BlobRef, BlobStore

WRITE_BATCH_BYTES = 1024 * 1024


async def spool(blobs: BlobStore, chunks: AsyncIterable[bytes]) -> BlobRef:
    """Write the chunks to a new blob (fsynced when this returns); a failure leaves no file.

    Chunks are gathered up to about 1 MiB before each write in a worker thread, so memory is
    bounded by that batch whatever the size of the body.
    """
    with blobs.writer() as writer:
        pending: list[bytes] = []
        pending_size = 0
        async for chunk in chunks:
            pending.append(chunk)
            pending_size += len(chunk)
            if pending_size >= WRITE_BATCH_BYTES:
                await anyio.to_thread.run_sync(writer.write, b"".join(pending))
                pending, pending_size = [], 0
        if pending:
            await anyio.to_thread.run_sync(writer.write, b"".join(pending))
        return await anyio.to_thread.run_sync(writer.commit)
