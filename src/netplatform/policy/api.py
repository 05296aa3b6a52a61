"""HTTP routes of the policy design API."""

from __future__ import annotations

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.service import ServiceSpec
from .errors import ErrorResponse, render_error, version_headers

SPEC = ServiceSpec(
    name="policy",
    title="netplatform policy design",
    version="1.0.0",
    render_error=render_error,
    error_model=ErrorResponse,
    response_headers=version_headers,
)


def create_app(settings: Settings) -> FastAPI:
    return build_app(SPEC, settings, routers=[])
