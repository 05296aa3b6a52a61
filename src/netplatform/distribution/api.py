"""The file-distribution service (spec 4.2): its identity, its routes and its delivery workers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.service import ServiceSpec
from .delivery import DeliveryEngine
from .errors import ERROR_MEDIA_TYPE, render_error
from .metrics import DeliveryMetrics
from .provisioning import Provisioning
from .publishing import Publisher
from .routes import feeds, logs, publish, subscriptions

SPEC = ServiceSpec(
    name="distribution",
    title="netplatform file distribution",
    version="1.0.0",
    render_error=render_error,
    error_media_type=ERROR_MEDIA_TYPE,
)


@asynccontextmanager
async def _run_delivery(app: FastAPI) -> AsyncIterator[None]:
    engine: DeliveryEngine = app.state.delivery
    await engine.start()
    try:
        yield
    finally:
        await engine.stop()


def create_app(settings: Settings) -> FastAPI:
    app = build_app(
        SPEC,
        settings,
        routers=[feeds.router, subscriptions.router, logs.router, publish.router],
        lifespan=_run_delivery,
    )
    state = app.state
    state.provisioning = Provisioning(state.db, state.blobs, settings)
    state.publisher = Publisher(state.db, settings.instance_name)
    state.delivery_metrics = DeliveryMetrics(state.metrics.registry, state.db)
    state.delivery = DeliveryEngine(state.db, state.blobs, settings, state.delivery_metrics)
    return app
