"""The operations of a running service, read from its app's route table (for tests that walk them)."""

from __future__ import annotations

import re
from typing import cast

from fastapi import FastAPI

from .servers import LiveServer


def protected_operations(server: LiveServer) -> list[tuple[str, str]]:
    """Every (method, path) of the app's routes that needs credentials, parameters filled with ``x``."""
    app = cast(FastAPI, server.server.config.app)
    found: list[tuple[str, str]] = []
    for route in app.state.route_table.routes:
        if (route.openapi_extra or {}).get("security") == []:
            continue  # public (the kernel's /health)
        path = re.sub(r"\{[^}]+\}", "x", route.path)
        found.extend((method, path) for method in sorted(route.methods))
    return found
