"""Every file a document names exists: a doc that names a moved or deleted module misleads.

A name in backticks that looks like a file (a known extension, no placeholder) must resolve: a
path with a folder against the repository root, the source package, the tests, the benchmarks,
the document's own service package and ``../shared``; a bare file name against any file of the
repository of that name.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "netplatform"
SHARED = ROOT.parent / "shared"
DOCUMENTS = sorted([ROOT / "README.md", ROOT / "DESIGN.md", *(ROOT / "docs").glob("*.md")])
_NAMED = re.compile(r"`([^`\s]+\.(?:py|md|toml|lock|js|css|html|sh|yaml|json|ini|cfg))`")
_PLACEHOLDER = re.compile(r"[<>{}*]|^\.\.\.|NNNN")
# Inside a CBA archive (its own folders) or a URL path: not files of this repository.
_NOT_OURS = re.compile(r"^(/|(Definitions|Templates|Scripts|Plans|Environments|TOSCA-Metadata)/)")
# Files a document's example has its reader create.
_EXAMPLES = frozenset({"run.json", "assign.json", "deploy.json"})
_BASES = (ROOT, ROOT / "src", PACKAGE, ROOT / "tests", ROOT / "bench", ROOT / "docs", SHARED)


@cache
def _every_file_name() -> frozenset[str]:
    skip = {".venv", ".git", "var", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
    names: set[str] = set()
    for path in ROOT.rglob("*"):
        if not skip.intersection(path.relative_to(ROOT).parts):
            names.add(path.name)
    return frozenset(names)


def _exists(name: str, document: Path) -> bool:
    if "/" not in name:
        return name in _every_file_name()
    if name.startswith("/work/shared/") or name.startswith("../shared/"):
        return (SHARED / name.split("shared/", 1)[1]).exists()
    # A path may be written from its service package, or from any package for DESIGN.md.
    packages = [path for path in PACKAGE.iterdir() if path.is_dir()]
    bases = [*_BASES, *packages, PACKAGE / "blueprints" / "execution"]
    return any((base / name.removeprefix("./")).exists() for base in bases)


def _named_files(document: Path) -> list[str]:
    found = _NAMED.findall(document.read_text(encoding="utf-8"))
    return sorted(
        {
            name
            for name in found
            if not _PLACEHOLDER.search(name) and not _NOT_OURS.search(name) and name not in _EXAMPLES
        }
    )


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_file_a_document_names_exists(document: Path) -> None:
    missing = [name for name in _named_files(document) if not _exists(name, document)]
    assert not missing, f"{document.relative_to(ROOT)} names files that do not exist: {missing}"
