"""The config tree service: RESTCONF read, create, replace and delete, each one transaction.

Requests arrive as a :class:`~.paths.Target` (and, for writes, the :class:`~.edits.Edit` s the
body asks for). Each write runs in one database transaction and is committed before it is
answered. When two writers race to create the same row, the database's unique constraint
stops the second; its transaction is then run again from the start and sees the row, so a
concurrent POST answers 409 and a concurrent PUT replaces, and nothing is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, IntegrityError

from ..store.db import Database
from .edits import Edit
from .errors import restconf_error
from .instances import prune
from .paths import Target
from .repository import TreeRepository
from .schema import qualified_name
from .tree import Tree

T = TypeVar("T")

WRITE_ATTEMPTS = 5
_RETRYABLE_SQLSTATES = frozenset({"40001", "40P01"})  # serialization failure, deadlock detected


class ConfigTree:
    def __init__(self, db: Database) -> None:
        self.db = db

    def read(self, target: Target, depth: int | None = None) -> dict[str, Any]:
        """The RFC 7951 body of the target: ``{"module:node": value}`` (a list entry as a 1-array)."""
        with self.db.read() as session:
            value = Tree(TreeRepository(session)).read(target)
        if value is None:
            raise restconf_error(
                "data-missing",
                "Request could not be completed because the relevant data model content does not exist",
                error_type="application",
            )
        if target.last.is_entry:
            value = [value]
        return {qualified_name(target.node): prune(target.node, value, depth)}

    def create(self, edits: Sequence[Edit]) -> None:
        """Create every edit's node (POST): 409 and nothing written if any of them exists."""

        def work(tree: Tree) -> None:
            for edit in edits:
                tree.write(edit.target, edit.value, create_only=True)

        self._write(work)

    def replace(self, edit: Edit) -> bool:
        """Replace the edit's node (PUT); True when it was created."""
        return not self._write(lambda tree: tree.write(edit.target, edit.value))

    def delete(self, target: Target) -> None:
        def work(tree: Tree) -> None:
            if not tree.remove(target):
                raise restconf_error(
                    "data-missing", f"Data does not exist for path: {target.instance_identifier()}"
                )

        self._write(work)

    def _write(self, work: Callable[[Tree], T]) -> T:
        for _attempt in range(WRITE_ATTEMPTS - 1):
            try:
                return self._transaction(work)
            except DBAPIError as error:
                if not _lost_a_race(error):
                    raise
        return self._transaction(work)

    def _transaction(self, work: Callable[[Tree], T]) -> T:
        with self.db.write() as session:
            return work(Tree(TreeRepository(session)))


def _lost_a_race(error: DBAPIError) -> bool:
    """A unique key taken by a concurrent writer, or a deadlock/serialisation failure: run again."""
    return isinstance(error, IntegrityError) or getattr(error.orig, "sqlstate", None) in _RETRYABLE_SQLSTATES
