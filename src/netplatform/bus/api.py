"""HTTP routes of the bus controller."""

from __future__ import annotations

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.service import ServiceSpec
from .errors import ApiErrorBody, render_error

SPEC = ServiceSpec(
    name="bus",
    title="netplatform bus controller",
    version="1.1.0",
    render_error=render_error,
    error_model=ApiErrorBody,
)


def create_app(settings: Settings) -> FastAPI:
    return build_app(SPEC, settings, routers=[])
