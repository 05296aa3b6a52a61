"""Spool space: this node's publishes stop, and its oldest spooled files are given up, before the
disk of its spool (the blob directory) fills.

Below ``delivery_spool_min_free_bytes`` free on that filesystem a publish is answered 503 (with
``Retry-After``) before a byte of its body is stored; so is one whose ``Content-Length`` would take
the free space under the floor, and a body without one is cut off (503, the partial file removed)
the moment it would. A file forwarded by another node is refused the same way; the sending node
keeps it and tries again with the subscription's backoff.

Every ``delivery_spool_check_s`` the node checks the floor and, while under it, expires its
spooled files, oldest first, each with an ``exp diskFull`` record for every subscription still
waiting for it, until the free space is back at the floor. Only the node's own files are given
up: every node has its own spool. A delivery in flight when its file is given up still completes
(an open file keeps its bytes), so its ``del`` record may follow the ``exp``.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import AsyncIterable
from pathlib import Path

import anyio

from ..settings import Settings
from ..store.blobs import BlobRef, BlobStore, BlobTooLarge
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import ServiceUnavailable
from .delivery.engine import unsent_expiry
from .delivery.metrics import DeliveryMetrics
from .log_model import ExpiryReason
from .repository import Repositories
from .repository.queue import DeliveryJob

log = logging.getLogger("netplatform.distribution.spool")

RETRY_AFTER_S = 60
BATCH = 50
"""Files read per query while giving files up (the free space is checked before each one)."""


UNDER_FLOOR = "this node's spool is under its free-space floor"
FILE_TOO_LARGE = "the file would take this node's spool under its free-space floor"


def declared_length(value: str | None) -> int | None:
    """A request's ``Content-Length`` header as a number (None without one, as for a chunked body)."""
    return int(value) if value is not None and value.isascii() and value.isdigit() else None


def disk_full(why: str) -> ServiceUnavailable:
    """The 503 of a publish refused for want of spool space."""
    return ServiceUnavailable(
        f"Disk full: {why}; try again later.",
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


class SpoolSpace:
    def __init__(self, db: Database, blobs: BlobStore, settings: Settings, metrics: DeliveryMetrics) -> None:
        self.unit = UnitOfWork(db, Repositories)
        self.blobs = blobs
        self.metrics = metrics
        self.node = settings.instance_name
        self.floor = settings.delivery_spool_min_free_bytes

    def free_bytes(self) -> int:
        """Free space of the spool's filesystem (the blob directory, or its nearest existing parent)."""
        path = Path(self.blobs.root).absolute()
        while not path.exists() and path != path.parent:
            path = path.parent
        return shutil.disk_usage(path).free

    def room(self, declared_length: int | None) -> int | None:
        """Bytes a publish may store (None: no floor); 503 when it would leave less than the floor."""
        if not self.floor:
            return None
        room = self.free_bytes() - self.floor
        if room <= 0:
            raise disk_full(UNDER_FLOOR)
        if declared_length is not None and declared_length > room:
            raise disk_full(f"{FILE_TOO_LARGE} ({declared_length} bytes)")
        return room

    @staticmethod
    def check_room(size: int, room: int | None) -> None:
        """503 when a body of ``size`` bytes, received whole, does not fit in ``room`` (from :meth:`room`)."""
        if room is not None and size > room:
            raise disk_full(FILE_TOO_LARGE)

    async def store(self, body: AsyncIterable[bytes], length: int | None) -> BlobRef:
        """Spool ``body`` (``length`` as declared, if it was) as a durable blob, or refuse it with 503
        when it would take the spool under the floor (nothing is left behind)."""
        return await self.store_within(body, await anyio.to_thread.run_sync(self.room, length))

    async def store_within(self, body: AsyncIterable[bytes], room: int | None) -> BlobRef:
        """:meth:`store` for a caller that already asked :meth:`room` (in a thread hop of its own)."""
        try:
            return await self.blobs.put_stream(body, max_bytes=room)
        except BlobTooLarge:
            raise disk_full(FILE_TOO_LARGE) from None

    def relieve(self) -> int:
        """Give up this node's oldest spooled files until the free space is back at the floor; how many."""
        if not self.floor:
            return 0
        given_up = 0
        while self.free_bytes() < self.floor:
            oldest = self.unit.read(lambda repo: repo.queue.oldest_spooled(self.node, BATCH))
            if not oldest:
                break
            for file_row in oldest:
                if self.free_bytes() >= self.floor:
                    break
                self._give_up(file_row)
                given_up += 1
        if given_up:
            log.warning("spool under its free-space floor: %d files expired (diskFull)", given_up)
        return given_up

    def _give_up(self, file_row: int) -> None:
        def work(repo: Repositories) -> tuple[list[DeliveryJob], list[str]]:
            jobs, unused = repo.queue.end_file(file_row, self.node)
            for job in jobs:
                repo.logs.insert(unsent_expiry(job, ExpiryReason.DISK_FULL))
            return jobs, unused

        jobs, unused = self.unit.write(work, retry=False)
        for blob in unused:
            self.blobs.delete(blob)
        if jobs:
            self.metrics.outcomes.labels("expired").inc(len(jobs))
