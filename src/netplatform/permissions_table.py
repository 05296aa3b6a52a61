"""Every operation of every service with the permission it declares: the table of
docs/security.md (``netplatform permissions`` prints it; tests/test_permissions_table.py checks the
page against it)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from .services import create_service_app
from .settings import SERVICE_NAMES, Settings
from .web.permissions import AUTHENTICATED, PERMISSION_KEY, RULE_KEY, declared

START = "<!-- permissions:start -->"
END = "<!-- permissions:end -->"

_KERNEL_PATHS = frozenset({"/openapi.json", "/docs", "/docs/oauth2-redirect"})


@dataclass(frozen=True, order=True)
class Operation:
    service: str
    path: str
    method: str
    needs: str


def operations() -> list[Operation]:
    with tempfile.TemporaryDirectory() as data_dir:
        settings = Settings(data_dir=Path(data_dir), users="admin:admin")
        found = [op for name in SERVICE_NAMES for op in _operations_of(name, settings)]
    return sorted(found)


def _operations_of(service: str, settings: Settings) -> list[Operation]:
    app = create_service_app(service, settings)
    found = []
    for route in app.state.route_table.routes:
        if route.path in _KERNEL_PATHS:
            continue
        extra = route.openapi_extra or {}
        for method in sorted((route.methods or set()) - {"HEAD"}):
            found.append(Operation(service, route.path, method, _needs(extra, method)))
    return found


def _needs(extra: dict[str, object], method: str) -> str:
    if extra.get("security") == [] and PERMISSION_KEY not in extra:
        return "none (public)"
    required = declared(extra, method)
    if required == AUTHENTICATED:
        return f"any identity; {extra.get(RULE_KEY)}"
    return f"`{required}`" if required is not None else "**undeclared**"


def markdown() -> str:
    lines = ["| service | method | path | needs |", "|---|---|---|---|"]
    for op in operations():
        path = op.path.replace("|", "\\|")
        lines.append(f"| {op.service} | {op.method} | `{path}` | {op.needs} |")
    return "\n".join(lines) + "\n"


def replace_table(page: str, table: str) -> str:
    """``page`` with the text between its markers replaced by ``table``."""
    head, _, rest = page.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{table}{END}{tail}"
