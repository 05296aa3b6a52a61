"""HTTP routes of the blueprint catalog."""

from __future__ import annotations

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.service import ServiceSpec
from .errors import ErrorPayload, render_error

SPEC = ServiceSpec(
    name="blueprints",
    title="netplatform blueprint catalog",
    version="1.0.0",
    render_error=render_error,
    error_model=ErrorPayload,
)


def create_app(settings: Settings) -> FastAPI:
    return build_app(SPEC, settings, routers=[])
