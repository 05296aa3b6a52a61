"""Two instances of the platform over one database, each its own process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, TypeVar

from .databases import temporary_database


class Closable(Protocol):
    def close(self) -> None: ...


Started = TypeVar("Started", bound=Closable)


@contextmanager
def instance_pair(
    tmp_path: Path, start: Callable[[str, Path, str], Started]
) -> Iterator[tuple[Started, Started]]:
    """``start(name, tmp_path, database_url)`` twice, over one fresh database (PostgreSQL when
    NETPLATFORM_TEST_DATABASE_URL is set, else one SQLite file); both closed afterwards."""
    with temporary_database() as url:
        database_url = url or f"sqlite:///{tmp_path / 'shared.db'}"
        a = start("node-a", tmp_path, database_url)
        try:
            b = start("node-b", tmp_path, database_url)
        except BaseException:
            a.close()
            raise
        try:
            yield a, b
        finally:
            b.close()
            a.close()
