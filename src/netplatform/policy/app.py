"""The policy design app (spec 4.4): its routes, service objects and lifespan."""

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
from .catalog import Catalog
from .counting import CountingMiddleware
from .deps import OBJECTS, PolicyObjects
from .healthcheck import HealthCheck
from .node_templates import NodeTemplates
from .policy_store import PolicyStore
from .preload import load_catalog
from .routes import health, node_templates, policies, policy_types, statistics
from .spec import SPEC
from .statistics import FLUSH_INTERVAL_S, Statistics


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Load the preloaded catalog on the first start of an empty store; flush the statistics last
    (the kernel's job flushes them meanwhile, and stops before this ends)."""
    objects = OBJECTS.of(app)
    await anyio.to_thread.run_sync(load_catalog, objects.catalog)
    yield
    await objects.statistics.flush_now()


def create_app(settings: Settings) -> FastAPI:
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
    app.state.jobs.every("statistics-flush", FLUSH_INTERVAL_S, counters.flush)
    catalog = Catalog(store)
    OBJECTS.install(
        app,
        PolicyObjects(
            catalog=catalog,
            node_templates=NodeTemplates(catalog),
            statistics=counters,
            # The reference reports the host name as the health report's url.
            health_check=HealthCheck(app.state.health, instance_name=socket.gethostname()),
        ),
    )
    return app
