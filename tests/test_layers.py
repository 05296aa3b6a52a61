"""The floors, checked: every import of src/ (tests/support/source.py: module-level, local and
``TYPE_CHECKING`` imports alike) stands on its own floor or looks down (src/netplatform/floors.py),
the services never import each other, no package's parts import each other in a circle, and
DESIGN.md shows the floors as declared."""

from __future__ import annotations

from pathlib import Path

import pytest

from netplatform.floors import END, FLOORS, floor_of, render, replace_section
from tests.support.source import Import, Module, circles_within_packages, imports, modules

ROOT = Path(__file__).resolve().parents[1]

# Circles allowed to stay open: each entry is (package, the parts in the circle). None is left
# (issue 40 broke the last ones by moving the shared piece down). An entry whose circle no longer
# exists fails the test, so it cannot outlive its circle.
ALLOWED_CIRCLES: frozenset[tuple[str, frozenset[str]]] = frozenset()


def _top(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def floor_violations(found: list[Import]) -> list[str]:
    """Imports that run up a floor, or between two independent parts of one floor."""
    problems = []
    for edge in found:
        source, target = _top(edge.source), _top(edge.target)
        if source == target:
            continue
        low, high = floor_of(target), floor_of(source)
        assert low is not None and high is not None, f"{source} or {target} stands on no floor"
        if low > high:
            problems.append(
                f"{edge.source}:{edge.line} imports {edge.target}:"
                f" {FLOORS[high].name} imports {FLOORS[low].name}, a floor above it"
            )
        elif low == high and FLOORS[low].independent:
            problems.append(
                f"{edge.source}:{edge.line} imports {edge.target}:"
                f" the parts of {FLOORS[low].name} do not import each other"
            )
    return problems


def circle_problems(known: dict[str, Module], found: list[Import]) -> tuple[list[str], list[str]]:
    """(circles not allowed, allowed circles that no longer exist)."""
    seen = {
        (package, frozenset(circle))
        for package, circles in circles_within_packages(known, found).items()
        for circle in circles
    }
    new = [_describe(package, parts, found) for package, parts in sorted(seen - ALLOWED_CIRCLES, key=str)]
    gone = [f"{package}: {sorted(parts)}" for package, parts in sorted(ALLOWED_CIRCLES - seen, key=str)]
    return new, gone


def _describe(package: str, parts: frozenset[str], found: list[Import]) -> str:
    """The circle and the imports that close it, one per pair of its parts."""
    links: dict[tuple[str, str], str] = {}
    prefix = package + "."
    for edge in found:
        if not (edge.source.startswith(prefix) and edge.target.startswith(prefix)):
            continue
        source = edge.source[len(prefix) :].split(".")[0]
        target = edge.target[len(prefix) :].split(".")[0]
        if source != target and {source, target} <= parts:
            links.setdefault((source, target), f"{edge.source}:{edge.line} -> {edge.target}")
    return f"{package}: {sorted(parts)} ({'; '.join(links.values())})"


@pytest.fixture(scope="module")
def project() -> tuple[dict[str, Module], list[Import]]:
    known = modules()
    return known, imports(known)


def test_every_part_of_the_package_stands_on_a_floor(project: tuple[dict[str, Module], list[Import]]) -> None:
    known, _ = project
    unplaced = sorted({_top(name) for name in known} - {part for floor in FLOORS for part in floor.parts})
    assert not unplaced, f"declare these in src/netplatform/floors.py: {unplaced}"
    declared = [part for floor in FLOORS for part in floor.parts]
    assert len(declared) == len(set(declared)), "a part declared on two floors"


def test_no_import_runs_up_a_floor(project: tuple[dict[str, Module], list[Import]]) -> None:
    _, found = project
    problems = floor_violations(found)
    assert not problems, "\n".join(problems)


def test_no_circle_among_the_parts_of_any_package(project: tuple[dict[str, Module], list[Import]]) -> None:
    known, found = project
    new, gone = circle_problems(known, found)
    assert not new, "import circles:\n" + "\n".join(new)
    assert not gone, "ALLOWED_CIRCLES names circles that are gone; remove them:\n" + "\n".join(gone)


def test_design_md_shows_the_floors_as_declared() -> None:
    design = (ROOT / "DESIGN.md").read_text(encoding="utf-8")
    assert END in design, "DESIGN.md lacks the floors section (netplatform floors --write DESIGN.md)"
    assert replace_section(design, render()) == design, "run: netplatform floors --write DESIGN.md"


# --- the checks can fail -----------------------------------------------------------------------


def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, Module]:
    for name, text in files.items():
        path = tmp_path / "netplatform" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return modules(tmp_path)


def test_an_import_up_a_floor_and_between_services_is_found(tmp_path: Path) -> None:
    known = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "store/__init__.py": "",
            "store/db.py": "def f():\n    from ..web import app\n",  # a local import counts
            "web/__init__.py": "",
            "web/app.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..bus import x\n",
            "bus/__init__.py": "",
            "bus/x.py": "from ..router.y import z\n",
            "router/__init__.py": "",
            "router/y.py": "z = 1\n",
        },
    )
    problems = floor_violations(imports(known))
    assert [problem.split(":")[0] for problem in problems] == [
        "netplatform.bus.x",
        "netplatform.store.db",
        "netplatform.web.app",
    ], problems


def test_a_circle_between_files_and_between_a_file_and_a_folder_is_found(tmp_path: Path) -> None:
    known = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "svc/__init__.py": "",
            "svc/a.py": "from .b import x\n",
            "svc/b.py": "from . import a\n",
            "svc/delivery/__init__.py": "",
            "svc/delivery/engine.py": "from ..sender import s\n",
            "svc/sender.py": "from .delivery.engine import e\n",
        },
    )
    found = circles_within_packages(known, imports(known))
    assert found == {"netplatform.svc": [["a", "b"], ["delivery", "sender"]]}


def test_every_declared_part_exists(project: tuple[dict[str, Module], list[Import]]) -> None:
    """A renamed or removed package leaves no stale declaration behind."""
    known, _ = project
    present = {_top(name) for name in known}
    missing = [part for floor in FLOORS for part in floor.parts if part not in present]
    assert not missing, f"floors.py declares parts src/netplatform/ does not have: {missing}"
