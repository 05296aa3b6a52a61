"""HTTP routes of the config tree."""

from __future__ import annotations

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.service import ServiceSpec
from .errors import RestconfErrors, render_error

SPEC = ServiceSpec(
    name="configtree",
    title="netplatform config tree",
    version="1.0.0",
    render_error=render_error,
    error_model=RestconfErrors,
)


def create_app(settings: Settings) -> FastAPI:
    return build_app(SPEC, settings, routers=[])
