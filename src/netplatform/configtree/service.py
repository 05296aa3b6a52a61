"""The config tree service object: RESTCONF read, create, replace and delete, each one transaction.

Requests arrive as a :class:`~.paths.Target` (and, for writes, the :class:`~.edits.Edit` s the
body asks for). Each write runs in one database transaction and is committed before it is
answered. When two writers race to create the same row, the database's unique constraint
stops the second; :meth:`~netplatform.store.unit_of_work.UnitOfWork.write` runs its transaction
again from the start and it sees the row, so a concurrent POST answers 409 and a concurrent PUT
replaces, and nothing is lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .edits import Edit
from .errors import restconf_error
from .instances import prune
from .paths import Target
from .repository import EntryReader, TreeRepository
from .schema import qualified_name
from .tree import Tree, in_one_entry, read_in_entry


class ConfigTree:
    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, _tree)
        self.entries = EntryReader(self.unit)

    def read(self, target: Target, depth: int | None = None) -> dict[str, Any]:
        """The RFC 7951 body of the target: ``{"module:node": value}`` (a list entry as a 1-array)."""
        if in_one_entry(target):
            # One row, one statement: no transaction, session or statement to build.
            value = read_in_entry(self.entries, target)
        else:
            value = self.unit.read(lambda tree: tree.read(target))
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

        self.unit.write(work)

    def replace(self, edit: Edit) -> bool:
        """Replace the edit's node (PUT); True when it was created."""
        return not self.unit.write(lambda tree: tree.write(edit.target, edit.value))

    def delete(self, target: Target) -> None:
        def work(tree: Tree) -> None:
            if not tree.remove(target):
                raise restconf_error(
                    "data-missing", f"Data does not exist for path: {target.instance_identifier()}"
                )

        self.unit.write(work)


def _tree(session: Session) -> Tree:
    """The tree's rules over its rows, in ``session``'s transaction."""
    return Tree(TreeRepository(session))
