"""The project's source as the rule tests read it: every module of a package tree, parsed (ast),
and the imports between them.

An import counts wherever it stands: at module level, inside a function (a local import is still
a dependency, taken later), and under ``if TYPE_CHECKING:`` (a type named from a floor above, or
from the other end of a circle, is still knowledge of it: the circle is in the design even when
it is not in the running program). Only imports of the tree's own modules are kept; ``from x
import y`` counts as an import of the module ``x.y`` when that is a module, else of ``x``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


@dataclass(frozen=True)
class Module:
    name: str  # dotted: netplatform.web.app
    path: Path
    is_package: bool  # an __init__.py

    @property
    def tree(self) -> ast.Module:
        return _parsed(self.path)

    @property
    def relative(self) -> str:
        """The path below src/netplatform/, as failures name a file."""
        return "/".join(self.path.parts[len(SRC.parts) + 1 :])


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int


@cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def modules(src: Path = SRC, package: str = "netplatform") -> dict[str, Module]:
    """Every module of ``src/<package>``, by dotted name."""
    found: dict[str, Module] = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        found[name] = Module(name, path, is_package)
    return found


def imports(known: Mapping[str, Module]) -> list[Import]:
    """Every import of a module of ``known`` by another one (once per statement and target)."""
    found = (edge for module in known.values() for edge in _imports_of(module, known))
    return list(dict.fromkeys(found))


def _imports_of(module: Module, known: Mapping[str, Module]) -> Iterator[Import]:
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names
            ]
        else:
            continue
        for name in names:
            target = _known_prefix(name, known)
            if target is not None and target != module.name:
                yield Import(module.name, target, node.lineno)


def _member(base: str, name: str, known: Mapping[str, Module]) -> str:
    """``from base import name``: the module ``base.name`` when it is one, else ``base``."""
    return f"{base}.{name}" if f"{base}.{name}" in known else base


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if not module.is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _known_prefix(name: str, known: Mapping[str, Module]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def circles(nodes: Iterable[str], edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's, iterative), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            step = next(pending, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(edges.get(step, ()))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def circles_within_packages(
    known: Mapping[str, Module], found: Iterable[Import]
) -> dict[str, list[list[str]]]:
    """For each package, the circles among its parts (its modules and subpackages, each standing
    for everything below it): a circle between two files shows at the package that holds both,
    a circle between a file and a folder (distribution's delivery/ and forward_sender.py) too."""
    edges = list(found)
    result: dict[str, list[list[str]]] = {}
    for package in sorted(name for name, module in known.items() if module.is_package):
        graph: dict[str, set[str]] = {}
        for edge in edges:
            source, target = _part(package, edge.source), _part(package, edge.target)
            if source is not None and target is not None and source != target:
                graph.setdefault(source, set()).add(target)
        nodes = sorted(set(graph) | {target for targets in graph.values() for target in targets})
        if cycles := circles(nodes, {node: sorted(targets) for node, targets in graph.items()}):
            result[package] = cycles
    return result


def _part(package: str, module: str) -> str | None:
    """The part of ``package`` that holds ``module`` (its name relative to the package)."""
    prefix = package + "."
    if not module.startswith(prefix):
        return None
    return module[len(prefix) :].split(".")[0]


def assert_rule_kept(problems: Mapping[str, list[str]], allowed: Iterable[str], what: str) -> None:
    """Fail on a module (relative path) breaking a rule that ``allowed`` does not name, saying
    ``what`` they do, and on an ``allowed`` entry that keeps the rule now (it cannot go stale)."""
    exempt = set(allowed)
    unexpected = {path: found for path, found in problems.items() if path not in exempt}
    assert not unexpected, f"{what}:\n" + "\n".join(
        f"{path}: {'; '.join(found)}" for path, found in sorted(unexpected.items())
    )
    gone = sorted(exempt - set(problems))
    assert not gone, f"ALLOWED names modules that keep the rule now; remove them: {gone}"
