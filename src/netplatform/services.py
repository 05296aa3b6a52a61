"""The five services by name, and how to build each one's app."""

from __future__ import annotations

import importlib

from fastapi import FastAPI

from .settings import SERVICE_NAMES, Settings


def create_service_app(name: str, settings: Settings) -> FastAPI:
    if name not in SERVICE_NAMES:
        raise ValueError(f"unknown service {name!r}; choose from {', '.join(SERVICE_NAMES)}")
    module = importlib.import_module(f"netplatform.{name}")
    app: FastAPI = module.create_app(settings)
    return app
