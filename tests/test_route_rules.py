"""Routes only translate HTTP: a route module (``<service>/routes/*.py``, the console's
``views/*.py``) gets every object through its service's ``deps.py`` (the console's ``web.py``),
never from ``app.state`` nor from the registry (``OBJECTS``, ``Registry``) itself (DESIGN.md
"The rules that keep the shape")."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source import Module, assert_rule_kept, modules

# Route modules allowed to break the rule, each with its reason; an entry that no longer breaks it
# fails the test. Empty: distribution's publish route (sites-dist) goes through deps.py now.
ALLOWED: dict[str, str] = {}


def is_route_module(module: Module) -> bool:
    parts = module.relative.split("/")
    if module.is_package or len(parts) < 3:
        return False
    return parts[-2] == "routes" or (parts[0] == "console" and parts[-2] == "views")


def breaches(tree: ast.Module) -> list[str]:
    """Where a module reads ``app.state`` or names the registry, by line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "state" and _is_app(node.value):
            found.append((node.lineno, "reads app.state"))
        elif isinstance(node, ast.Name) and node.id in ("OBJECTS", "Registry"):
            found.append((node.lineno, f"names the registry ({node.id})"))
        elif isinstance(node, ast.ImportFrom):
            names = {alias.name for alias in node.names}
            if names & {"OBJECTS", "Registry"} or (node.module or "").endswith("registry"):
                found.append((node.lineno, "imports the registry"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def _is_app(node: ast.expr) -> bool:
    """``app``, ``<anything>.app`` or ``<anything>["app"]`` (a scope's app)."""
    if isinstance(node, ast.Name):
        return node.id == "app"
    if isinstance(node, ast.Attribute):
        return node.attr == "app"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "app"
    return False


def test_route_modules_reach_objects_through_deps_only() -> None:
    routes = [module for module in modules().values() if is_route_module(module)]
    assert len(routes) > 50, "the route modules were not found"
    problems = {module.relative: found for module in routes if (found := breaches(module.tree))}
    assert_rule_kept(problems, ALLOWED, "route modules that bypass deps.py")


def test_a_route_reading_app_state_or_the_registry_is_found(tmp_path: Path) -> None:
    source = (
        "from ..deps import OBJECTS\n"
        "def handler(request):\n"
        "    a = request.app.state.access\n"
        "    b = OBJECTS.of(request.app)\n"
        '    c = request.scope["app"].state\n'
    )
    found = breaches(ast.parse(source))
    assert [line.split(":")[0] for line in found] == ["line 1", "line 3", "line 4", "line 5"], found
