"""What ``netplatform serve`` runs, by name (settings.SERVED_NAMES), and how to build each one's app."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from fastapi import FastAPI
from sqlalchemy import Column

from .settings import SERVED_NAMES, SERVICE_NAMES, Settings


def create_service_app(name: str, settings: Settings) -> FastAPI:
    if name not in SERVED_NAMES:
        raise ValueError(f"unknown service {name!r}; choose from {', '.join(SERVED_NAMES)}")
    module = importlib.import_module(f"netplatform.{name}")
    app: FastAPI = module.create_app(settings)
    return app


def sealed_columns() -> list[Column[Any]]:
    """Every column of every service that holds sealed secrets (store/secrets.py): each service's
    ``tables.SEALED_COLUMNS``, which ``netplatform secrets rotate`` seals again."""
    from .access.tables import SEALED_COLUMNS as KERNEL_SEALED

    columns: list[Column[Any]] = list(KERNEL_SEALED)
    for name in SERVICE_NAMES:
        if importlib.util.find_spec(f"netplatform.{name}.tables") is None:
            continue  # authz keeps its tables in the kernel (access/tables.py)
        tables = importlib.import_module(f"netplatform.{name}.tables")
        columns.extend(getattr(tables, "SEALED_COLUMNS", ()))
    return columns
