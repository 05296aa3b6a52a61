"""The blueprint catalog app: its identity, its routes and its service objects."""

from __future__ import annotations

from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI

from ..settings import Settings
from ..store.database_blobs import shared_blob_store
from ..store.generations import Generation
from ..web.app import build_app
from ..web.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .archive import ArchiveLimits
from .blueprint_models import BlueprintModels
from .config_snapshots import ConfigSnapshots
from .dictionaries import Dictionaries
from .errors import ERROR_DESCRIPTIONS, ErrorPayload, render_error
from .execution.audit import ExecutionAudit
from .execution.components import (
    DELETION,
    RESOLUTION,
    SNAPSHOTS,
    ConfigSnapshotsExecutor,
    ResourceDeletion,
    unsupported,
)
from .execution.engine import Component, Engine
from .execution.executions import Executions
from .execution.render_pool import RenderPool
from .execution.resolution import ResourceResolution
from .execution.rest_sources import RestSources
from .execution.results import ResolutionResults
from .execution.sources import Sources
from .model_types import ModelTypes
from .resolved_resources import ResolvedResources
from .resolved_templates import ResolvedTemplates
from .starter_catalog import StarterCatalog
from .tables import CATALOG_SCOPE, blob_chunks, generations

SPEC = ServiceSpec(
    name="blueprints",
    title="netplatform blueprint catalog",
    version="1.0.0",
    render_error=render_error,
    error_model=ErrorPayload,
    error_descriptions=ERROR_DESCRIPTIONS,
    echoed_headers=("X-PLATFORM-InvocationID",),
)

PERMISSIONS = ServicePermissions(SPEC.name)
"""``platform.blueprints.api|<resource>|read|write``: what each route declares (routes/*.py)."""


def create_app(settings: Settings) -> FastAPI:
    # The routes document their errors with SPEC, so they are imported once it exists.
    from .routes import (
        actuator,
        blueprint_models,
        config_snapshots,
        dictionaries,
        execution,
        model_types,
        resolved_resources,
        resolved_templates,
    )

    routers = [
        actuator.router,
        blueprint_models.router,
        model_types.router,
        dictionaries.router,
        config_snapshots.router,
        resolved_templates.router,
        resolved_resources.router,
        execution.router,
    ]
    app = build_app(SPEC, settings, routers=routers, lifespan=_lifespan)
    state = app.state
    archives = shared_blob_store(state.db, state.blobs, blob_chunks)  # no shared directory on PostgreSQL
    state.blueprint_models = BlueprintModels(state.db, archives, ArchiveLimits.from_settings(settings))
    state.model_types = ModelTypes(state.db)
    state.catalog = Generation(state.db, generations, CATALOG_SCOPE)
    state.dictionaries = Dictionaries(state.db)
    state.config_snapshots = ConfigSnapshots(state.db)
    state.resolved_templates = ResolvedTemplates(state.db)
    state.resolved_resources = ResolvedResources(state.db)
    state.starter_catalog = StarterCatalog(state.blueprint_models, state.model_types, state.dictionaries)
    _add_executions(app, settings)
    return app


def _add_executions(app: FastAPI, settings: Settings) -> None:
    """The execution service: the engine, its components over the catalog's stores, the audit."""
    state = app.state
    state.step_pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="blueprints-step")
    state.async_pool = ThreadPoolExecutor(
        max_workers=settings.execution_async_workers, thread_name_prefix="blueprints-async"
    )
    state.rest_sources = RestSources.of(settings)
    state.renderers = RenderPool(settings.execution_render_workers, settings.execution_render_memory_mb)
    results = ResolutionResults(state.db)
    sources = Sources(state.rest_sources, results, state.dictionaries.definition)
    components: dict[str, Component] = {
        RESOLUTION: ResourceResolution(results, sources, state.renderers),
        DELETION: ResourceDeletion(results),
        SNAPSHOTS: ConfigSnapshotsExecutor(state.config_snapshots),
    }
    engine = Engine(components, unsupported, state.step_pool)
    state.execution_audit = ExecutionAudit(
        state.db, settings.execution_audit_retention_s, settings.instance_name
    )
    state.executions = Executions(state.blueprint_models, engine, state.execution_audit, state.async_pool)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    await anyio.to_thread.run_sync(app.state.execution_audit.fail_interrupted)
    try:
        yield
    finally:
        await anyio.to_thread.run_sync(lambda: app.state.async_pool.shutdown(wait=True))
        app.state.step_pool.shutdown(wait=False, cancel_futures=True)
        app.state.rest_sources.close()
        app.state.renderers.close()
