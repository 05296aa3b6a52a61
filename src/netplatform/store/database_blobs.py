"""Blobs kept in the database, for objects every instance must read (CBA archives): on
PostgreSQL no instance then needs a directory shared with the others.

A blob is a run of chunk rows (``CHUNK_SIZE`` bytes each, at least one row, so an empty blob
exists too) under a generated name, in a table the owning service creates in its migrations
(:func:`blob_chunks_table` gives its shape). :meth:`DatabaseBlobStore.put_file` writes them in
a transaction of its own, so the blob is durable when it returns and before the caller writes
the row naming it: the rule of the file store holds (a crash in between leaves an orphan, never
a row without its blob). :meth:`DatabaseBlobStore.open` copies the chunks, read by one statement
(one snapshot), into a spooled temporary file: a blob deleted meanwhile is either read whole or
not found, never cut short, as an open file keeps its bytes in the file store.
"""

from __future__ import annotations

import tempfile
from typing import IO, BinaryIO

from sqlalchemy import Column, Integer, LargeBinary, MetaData, String, Table, delete, func, insert, select

from .blobs import CHUNK_SIZE, BlobRef, BlobStorage, BlobStore, is_blob_name, new_blob_name
from .db import Database

_SPOOL_IN_MEMORY = 8 * 1024 * 1024  # an opened blob larger than this spills to a temporary file


def blob_chunks_table(name: str, metadata: MetaData) -> Table:
    """The shape of a chunk table (``bytea`` on PostgreSQL)."""
    return Table(
        name,
        metadata,
        Column("blob_name", String(32), primary_key=True),
        Column("seq", Integer, primary_key=True),
        Column("data", LargeBinary, nullable=False),
    )


def shared_blob_store(db: Database, files: BlobStore, chunks: Table) -> BlobStorage:
    """Where blobs every instance must read go: the database on PostgreSQL (instances may run on
    several machines); the files of ``files`` on SQLite (one machine, one data directory anyway)."""
    return DatabaseBlobStore(db, chunks) if db.is_postgresql else files


class DatabaseBlobStore:
    """:class:`~.blobs.BlobStorage` in a chunk table."""

    def __init__(self, db: Database, chunks: Table) -> None:
        self.db = db
        self.chunks = chunks

    def put_file(self, content: BinaryIO) -> BlobRef:
        """Copy a readable file object into a blob, a chunk (one row) at a time; durable on return."""
        name = new_blob_name()
        size = seq = 0
        with self.db.write() as session:
            while True:
                chunk = content.read(CHUNK_SIZE)
                if seq > 0 and not chunk:
                    break
                session.execute(insert(self.chunks).values(blob_name=name, seq=seq, data=chunk))
                size += len(chunk)
                seq += 1
        return BlobRef(name, size)

    def open(self, name: str) -> IO[bytes]:
        _check_name(name)
        query = select(self.chunks.c.data).where(self.chunks.c.blob_name == name).order_by(self.chunks.c.seq)
        copy = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)  # noqa: SIM115 - returned open
        try:
            with self.db.read() as session:
                rows = session.execute(query, execution_options={"yield_per": 4}).scalars()
                found = False
                for data in rows:
                    copy.write(data)
                    found = True
            if not found:
                raise FileNotFoundError(f"no blob {name}")
        except BaseException:
            copy.close()
            raise
        copy.seek(0)
        return copy

    def exists(self, name: str) -> bool:
        _check_name(name)
        query = select(func.count()).select_from(self.chunks).where(self.chunks.c.blob_name == name)
        with self.db.read() as session:
            return bool(session.execute(query).scalar_one())

    def delete(self, name: str) -> None:
        _check_name(name)
        with self.db.write() as session:
            session.execute(delete(self.chunks).where(self.chunks.c.blob_name == name))


def _check_name(name: str) -> None:
    if not is_blob_name(name):
        raise ValueError(f"not a blob name: {name!r}")
