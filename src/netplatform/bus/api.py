"""The bus controller app: its spec, its routers, and the client of the distribution service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.service import ServiceSpec
from .errors import ApiErrorBody, render_error
from .paths import CanonicalPathMiddleware
from .routes import bridge, clients, clusters, locations, nodes, settings, topics

SPEC = ServiceSpec(
    name="bus",
    title="netplatform bus controller",
    version="1.1.0",
    render_error=render_error,
    error_model=ApiErrorBody,
)

ROUTERS = [
    settings.router,
    locations.router,
    nodes.router,
    clusters.router,
    topics.router,
    clients.router,
    bridge.router,
]


def create_app(service_settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield

    app = build_app(SPEC, service_settings, routers=ROUTERS, lifespan=lifespan)
    app.router.redirect_slashes = False
    app.add_middleware(CanonicalPathMiddleware)
    return app
