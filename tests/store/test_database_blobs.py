"""Blobs in the database: whole, durable once put, gone once deleted; on SQLite and PostgreSQL."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest

from netplatform.settings import Settings
from netplatform.store.blobs import CHUNK_SIZE
from netplatform.store.database_blobs import DatabaseBlobStore, blob_chunks_table
from netplatform.store.db import database_for, new_metadata


@pytest.fixture
def store(settings: Settings) -> Iterator[DatabaseBlobStore]:
    metadata = new_metadata()
    table = blob_chunks_table("test_blob_chunks", metadata)
    db = database_for(settings)
    metadata.create_all(db.engine)
    yield DatabaseBlobStore(db, table)
    metadata.drop_all(db.engine)


@pytest.mark.parametrize("size", [0, 5, CHUNK_SIZE, 2 * CHUNK_SIZE + 7])
def test_put_and_open_keep_every_byte(store: DatabaseBlobStore, size: int) -> None:
    content = os.urandom(size)
    ref = store.put_file(io.BytesIO(content))
    assert ref.size == size
    assert store.exists(ref.name)
    with store.open(ref.name) as opened:
        assert opened.read() == content


def test_a_deleted_blob_is_gone_but_an_opened_copy_stays_whole(store: DatabaseBlobStore) -> None:
    content = os.urandom(CHUNK_SIZE + 1)
    ref = store.put_file(io.BytesIO(content))
    opened = store.open(ref.name)
    store.delete(ref.name)
    assert not store.exists(ref.name)
    with pytest.raises(FileNotFoundError):
        store.open(ref.name)
    with opened:
        assert opened.read() == content
    store.delete(ref.name)  # deleting twice is harmless


@pytest.mark.parametrize("name", ["../etc/passwd", "a" * 31, "G" * 32])
def test_names_from_outside_are_refused(store: DatabaseBlobStore, name: str) -> None:
    with pytest.raises(ValueError):
        store.open(name)
    with pytest.raises(ValueError):
        store.delete(name)
