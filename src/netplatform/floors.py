"""The floors of the house, declared once: which part of ``netplatform`` stands on which floor.

A module imports only from its own floor or the floors below it; the parts of a floor marked
``independent`` (the services) never import each other, they talk over HTTP. Within any package,
its parts (modules and subpackages) import each other without a circle. tests/test_layers.py
reads every import of src/ and fails on an import up a floor, between independent parts, or
closing a circle; DESIGN.md's "Floors" section is :func:`render` of this declaration (the same
test checks it; ``netplatform floors --write DESIGN.md`` writes it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Floor:
    name: str
    holds: str
    parts: tuple[str, ...]
    """The top-level modules and packages of ``netplatform`` on this floor (``__init__``: the
    package's own module)."""
    independent: bool = False
    """Its parts import nothing of each other."""


FLOORS: tuple[Floor, ...] = (
    Floor(
        "foundation",
        "the settings, the clock, log lines, this declaration: imports nothing of the platform above it",
        ("__init__", "settings", "clock", "logs", "floors"),
    ),
    Floor(
        "store",
        "persistence: the database and its one door (the unit of work), blobs, generations, locks, secrets",
        ("store",),
    ),
    Floor(
        "access",
        "who may do what: permissions, credentials, the directory every request is decided by,"
        " the throttle, the replica of a central directory",
        ("access",),
    ),
    Floor(
        "web",
        "the HTTP kernel every service shares: build_app, middleware, errors, OpenAPI, jobs, replay",
        ("web",),
    ),
    Floor(
        "services",
        "one package per service, each of one shape; they reach each other over HTTP only",
        ("authz", "blueprints", "bus", "configtree", "distribution", "policy", "router", "console"),
        independent=True,
    ),
    Floor(
        "assembly",
        "the process: the service index, the command line, the servers, the permissions table",
        ("services", "permissions_table", "server", "cli", "__main__"),
    ),
)
"""Bottom floor first."""

BEGIN = "<!-- floors: generated from src/netplatform/floors.py by `netplatform floors --write DESIGN.md`;"
END = "<!-- end of floors -->"


def floor_of(part: str) -> int | None:
    """The height of the floor ``part`` (a top-level module or package name) stands on."""
    for height, floor in enumerate(FLOORS):
        if part in floor.parts:
            return height
    return None


def render() -> str:
    """The floors as DESIGN.md shows them: a table, then a diagram, between the markers."""
    lines = [
        BEGIN + " tests/test_layers.py checks it -->",
        "",
        "| floor | parts | what it holds |",
        "|---|---|---|",
    ]
    for height, floor in reversed(list(enumerate(FLOORS))):
        parts = ", ".join(f"`{part}`" for part in floor.parts)
        marker = " (independent)" if floor.independent else ""
        lines.append(f"| {height} {floor.name}{marker} | {parts} | {floor.holds} |")
    lines += ["", "```mermaid", "flowchart TB"]
    for height, floor in reversed(list(enumerate(FLOORS))):
        lines.append(f'    subgraph floor{height}["{height} {floor.name}"]')
        lines.append("        direction LR")
        lines += [f'        floor{height}_{_node(part)}["{part}"]' for part in floor.parts]
        lines.append("    end")
    arrows = [f"floor{height} --> floor{height - 1}" for height in range(len(FLOORS) - 1, 0, -1)]
    lines += [f"    {arrow}" for arrow in arrows]
    lines += ["```", "", END]
    return "\n".join(lines) + "\n"


def _node(part: str) -> str:
    return part.strip("_") or "init"


def replace_section(text: str, section: str) -> str:
    """``text`` with what stands between the markers replaced by ``section``."""
    start = text.index(BEGIN)
    end = text.index(END, start) + len(END) + 1
    return text[:start] + section + text[end:]
