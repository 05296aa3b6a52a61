"""HTTP routes of the file-distribution service."""

from __future__ import annotations

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.errors import plain_text_renderer
from ..web.service import ServiceSpec

SPEC = ServiceSpec(
    name="distribution",
    title="netplatform file distribution",
    version="1.0.0",
    render_error=plain_text_renderer,
    error_media_type="text/plain",
)


def create_app(settings: Settings) -> FastAPI:
    return build_app(SPEC, settings, routers=[])
