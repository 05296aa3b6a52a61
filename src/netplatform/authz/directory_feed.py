"""The directory as a feed for other sites (access/replica.py): the whole directory at a
generation, and a long poll that waits for the next one.

A site sends the generation it holds; the answer comes as soon as the directory moves past it,
or, when it does not within ``wait`` seconds, says so without the directory. Each waiting
request reads the generation every :data:`POLL_S` (one indexed row): a change reaches a
waiting site within that, well inside the two seconds a grant or revoke may take to apply.
"""

from __future__ import annotations

import anyio

from ..access import tables
from ..access.replica import Snapshot, read_snapshot
from ..store.db import Database
from ..store.generations import Ended, Generation, wait_past

POLL_S = 0.2


class DirectoryFeed:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.generation = Generation(db, tables.generations, tables.GENERATION_SCOPE)

    async def after(
        self, known: int, wait_s: float, ended: Ended | None = None
    ) -> tuple[int, Snapshot | None]:
        """(generation, the directory) once it is past ``known``; (generation, None) when it is
        not after ``wait_s`` seconds, or once ``ended`` says nobody waits."""
        current, moved = await wait_past(known, wait_s, self.generation.current, POLL_S, ended)
        if not moved:
            return current, None
        snapshot = await anyio.to_thread.run_sync(read_snapshot, self.db, self.generation.peek)
        return snapshot.generation, snapshot
