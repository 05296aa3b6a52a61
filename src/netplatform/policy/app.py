"""The policy design app (spec 4.4): its identity, routes, service objects and lifespan."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI
from starlette.middleware import Middleware

from ..settings import Settings
from ..store.db import database_for
from ..store.generations import register_cache_metrics
from ..web.app import build_app
from ..web.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .catalog import Catalog
from .counting import CountingMiddleware
from .errors import ERROR_DESCRIPTIONS, ErrorResponse, render_error, version_headers
from .healthcheck import HealthCheck
from .media_types import YAML_MEDIA_TYPE
from .node_templates import NodeTemplates
from .policy_store import PolicyStore
from .preload import load_catalog
from .statistics import Statistics

MAX_BODY_BYTES = 8 * 1024 * 1024
"""Policy bodies are TOSCA text: the whole preloaded catalog is ~100 KB. YAML parsing is costly,
so the bound is tighter than the kernel's default (a lower NETPLATFORM_MAX_BODY_BYTES still wins)."""

SPEC = ServiceSpec(
    name="policy",
    title="netplatform policy design",
    version="1.0.0",
    render_error=render_error,
    error_model=ErrorResponse,
    error_media_types=(YAML_MEDIA_TYPE,),
    error_descriptions=ERROR_DESCRIPTIONS,
    response_headers=version_headers,
    max_body_bytes=MAX_BODY_BYTES,
)

PERMISSIONS = ServicePermissions(SPEC.name)
"""``platform.policy.api|<resource>|read|write``: what each route declares (routes/*.py)."""


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Load the preloaded catalog on the first start of an empty store; flush statistics meanwhile."""
    catalog: Catalog = app.state.catalog
    statistics: Statistics = app.state.statistics
    await anyio.to_thread.run_sync(load_catalog, catalog)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(statistics.flush_periodically)
        try:
            yield
        finally:
            tasks.cancel_scope.cancel()
    await statistics.flush_now()


def create_app(settings: Settings) -> FastAPI:
    # The routes document their errors with SPEC, so they are imported once it exists.
    from .routes import health, node_templates, policies, policy_types, statistics

    # The counting middleware needs the statistics before the app exists; database_for is the
    # process-wide Database, the same one build_app puts on app.state.db.
    store = PolicyStore(database_for(settings))
    counters = Statistics(store)
    app = build_app(
        SPEC,
        settings,
        routers=[
            health.router,
            statistics.router,
            policy_types.router,
            policies.router,
            node_templates.router,
        ],
        lifespan=lifespan,
        # Counting outermost: the healthcheck answered by the shortcut is counted like any call.
        middleware=[Middleware(CountingMiddleware, statistics=counters), health.healthcheck_shortcut()],
    )
    register_cache_metrics(app.state.metrics.registry, SPEC.name, store.answers)
    catalog = Catalog(store)
    app.state.catalog = catalog
    app.state.node_templates = NodeTemplates(catalog)
    app.state.statistics = counters
    # The reference reports the host name as the health report's url.
    app.state.health_check = HealthCheck(app.state.health, instance_name=socket.gethostname())
    return app
