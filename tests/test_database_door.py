"""One door to the database: outside store/, code reaches the database through a unit of work
(store/unit_of_work.py: reads, one-statement reads, writes, non-durable writes, group commits,
compiled statements; GenerationCache over a unit), never by opening a session, a connection or a
transaction itself (DESIGN.md "One unit of work")."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source import assert_rule_kept, modules

# What code outside store/ may import of store/db.py: the type it hands to a unit, and the
# process's lifecycle of it (the kernel, the command line).
DB_NAMES_ALLOWED = frozenset(
    {"Database", "database_for", "forget_database", "new_metadata", "normalize_url", "unavailable"}
)
# Ways in that bypass the unit: a session or engine made by hand, a bare group commit, a retry
# loop of one's own, a compiled statement on a Database.
FORBIDDEN_IMPORTS = {
    "sqlalchemy": {"create_engine"},
    "sqlalchemy.orm": {"sessionmaker", "scoped_session"},
    "netplatform.store.group_commit": {"GroupCommit"},
    "netplatform.store.retry": {"write_with_retry"},
}
# What a Database (a receiver named db or database) must not be asked for outside store/.
DATABASE_INTERNALS = frozenset(
    {"read", "write", "read_one_statement", "rows_of_one_statement", "engine", "raw_connection"}
)
_DATABASE_RECEIVERS = frozenset({"db", "database", "_db", "_database"})

# Modules allowed around the door, each with its reason; an entry whose module keeps the rule
# now fails the test. Empty: distribution's publisher group-commits through a grouped unit.
ALLOWED: dict[str, str] = {}


def breaches(tree: ast.Module, module_name: str) -> list[str]:
    """Where a module opens its own way into the database, by line."""
    found: list[tuple[int, str]] = []
    orm_session = False  # sqlalchemy.orm's Session imported (the console has a Session of its own)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(module_name, node)
            orm_session |= source == "sqlalchemy.orm" and any(a.name == "Session" for a in node.names)
            found += [(node.lineno, f"imports {name} from {source}") for name in _forbidden(source, node)]
        elif isinstance(node, ast.Attribute) and node.attr in DATABASE_INTERNALS and _is_database(node.value):
            found.append((node.lineno, f"calls the database's {node.attr} ({ast.unparse(node)})"))
    if orm_session:
        found += [(call.lineno, "opens a Session") for call in _calls(tree, "Session")]
    return [f"line {line}: {what}" for line, what in sorted(found)]


def _forbidden(source: str, node: ast.ImportFrom) -> list[str]:
    names = [alias.name for alias in node.names]
    if source == "netplatform.store.db":
        return [name for name in names if name not in DB_NAMES_ALLOWED]
    return [name for name in names if name in FORBIDDEN_IMPORTS.get(source, ())]


def _calls(tree: ast.Module, name: str) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
    ]


def _is_database(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in _DATABASE_RECEIVERS
    return isinstance(node, ast.Attribute) and node.attr in _DATABASE_RECEIVERS


def _absolute(module_name: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module_name.split(".")[: -node.level]
    return ".".join([*base, *([node.module] if node.module else [])])


def test_code_outside_store_goes_through_the_unit_of_work() -> None:
    outside = [module for module in modules().values() if not module.relative.startswith("store/")]
    problems: dict[str, list[str]] = {}
    for module in outside:
        # A package's __init__ counts as a module one level down for relative imports.
        name = module.name + ".__init__" if module.is_package else module.name
        if found := breaches(module.tree, name):
            problems[module.relative] = found
    assert_rule_kept(problems, ALLOWED, "ways into the database besides the unit of work")


def test_each_way_around_the_door_is_found(tmp_path: Path) -> None:
    source = (
        "from sqlalchemy.orm import Session, sessionmaker\n"
        "from ..store.db import Database, OneStatementRead\n"
        "from ..store.group_commit import GroupCommit\n"
        "def f(self, db):\n"
        "    with self.db.write(durable=False) as session:\n"
        "        pass\n"
        "    db.engine.begin()\n"
        "    Session(db.engine)\n"
    )
    found = breaches(ast.parse(source), "netplatform.svc.module")
    assert [line.split(":")[0] for line in found] == [
        "line 1",  # sessionmaker
        "line 2",  # OneStatementRead
        "line 3",  # GroupCommit
        "line 5",  # self.db.write
        "line 7",  # db.engine
        "line 8",  # Session(...)
        "line 8",  # db.engine
    ], found
