"""What ``netplatform serve`` runs, by name (settings.SERVED_NAMES), and how to build each one's app."""

from __future__ import annotations

import importlib

from fastapi import FastAPI

from .settings import SERVED_NAMES, Settings


def create_service_app(name: str, settings: Settings) -> FastAPI:
    if name not in SERVED_NAMES:
        raise ValueError(f"unknown service {name!r}; choose from {', '.join(SERVED_NAMES)}")
    module = importlib.import_module(f"netplatform.{name}")
    app: FastAPI = module.create_app(settings)
    return app
