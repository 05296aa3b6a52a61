"""The blueprint catalog app: its routes, its service objects and their lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TypedDict

import anyio
from fastapi import FastAPI

from ..settings import Settings
from ..store.database_blobs import shared_blob_store
from ..store.db import Database
from ..store.generations import Generation
from ..store.secrets import sealer_for
from ..web.app import build_app
from .blueprint_models import BlueprintModels
from .catalog.archive import ArchiveLimits
from .catalog.expansion import ExpansionLimits
from .config_snapshots import ConfigSnapshots
from .deps import OBJECTS, BlueprintsObjects
from .devices import Devices
from .dictionaries import Dictionaries
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
from .execution.netconf.component import NETCONF_EXECUTOR, NetconfExecutor
from .execution.netconf.sessions import SessionPool
from .execution.render_pool import RenderPool
from .execution.resolution import ResourceResolution
from .execution.rest_sources import RestSources
from .execution.results import ResolutionResults
from .execution.run_pool import RunPool
from .execution.sources import Sources
from .execution.wire import RequestLimits
from .model_types import ModelTypes
from .resolved_resources import ResolvedResources
from .resolved_templates import ResolvedTemplates
from .routes import (
    actuator,
    blueprint_models,
    config_snapshots,
    devices,
    dictionaries,
    execution,
    model_types,
    resolved_resources,
    resolved_templates,
)
from .spec import SPEC
from .starter_catalog import StarterCatalog
from .tables import CATALOG_SCOPE, blob_chunks, generations


class _Execution(TypedDict):
    """The execution service's part of :class:`BlueprintsObjects`."""

    executions: Executions
    execution_audit: ExecutionAudit
    run_pool: RunPool
    request_limits: RequestLimits
    step_pool: ThreadPoolExecutor
    async_pool: ThreadPoolExecutor
    rest_sources: RestSources
    renderers: RenderPool
    deploy_pool: ThreadPoolExecutor
    deploy_sessions: SessionPool


@dataclass(frozen=True)
class _Deploy:
    """What config deploy reads: the device inventory and the stored templates."""

    devices: Devices
    templates: ResolvedTemplates


def create_app(settings: Settings) -> FastAPI:
    routers = [
        actuator.router,
        blueprint_models.router,
        model_types.router,
        dictionaries.router,
        config_snapshots.router,
        resolved_templates.router,
        resolved_resources.router,
        execution.router,
        devices.router,
    ]
    app = build_app(SPEC, settings, routers=routers, lifespan=lifespan)
    OBJECTS.install(app, _objects(app, settings))
    return app


def _objects(app: FastAPI, settings: Settings) -> BlueprintsObjects:
    """The catalog's stores, then the execution service over them (:func:`_execution`)."""
    db = app.state.db
    archives = shared_blob_store(db, app.state.blobs, blob_chunks)  # no shared directory on PostgreSQL
    expansion = ExpansionLimits(
        settings.execution_max_expansion_values, settings.execution_max_expansion_bytes
    )
    models = BlueprintModels(db, archives, ArchiveLimits.from_settings(settings), expansion)
    types = ModelTypes(db)
    dictionary = Dictionaries(db)
    snapshots = ConfigSnapshots(db)
    templates = ResolvedTemplates(db)
    inventory = Devices(db, lambda: sealer_for(settings))
    return BlueprintsObjects(
        blueprint_models=models,
        model_types=types,
        dictionaries=dictionary,
        config_snapshots=snapshots,
        resolved_templates=templates,
        devices=inventory,
        resolved_resources=ResolvedResources(db),
        starter_catalog=StarterCatalog(models, types, dictionary),
        catalog=Generation(db, generations, CATALOG_SCOPE),
        **_execution(db, settings, models, dictionary, snapshots, expansion, _Deploy(inventory, templates)),
    )


def _execution(
    db: Database,
    settings: Settings,
    models: BlueprintModels,
    dictionary: Dictionaries,
    snapshots: ConfigSnapshots,
    expansion: ExpansionLimits,
    deploy: _Deploy,
) -> _Execution:
    """The execution service: the engine, its components over the catalog's stores, the audit,
    and the pools and REST sources the lifespan closes. Runs hold a thread of ``run_pool`` (sync)
    or of ``async_pool``; each step runs on ``step_pool`` (so that its timeout can end the
    wait), sized so that every run holding a thread has one for its step and as many again for
    steps that timed out and are still ending."""
    run_pool = RunPool(settings.execution_workers, settings.execution_queue, settings.execution_queue_wait_s)
    step_pool = ThreadPoolExecutor(
        max_workers=2 * (settings.execution_workers + settings.execution_async_workers),
        thread_name_prefix="blueprints-step",
    )
    async_pool = ThreadPoolExecutor(
        max_workers=settings.execution_async_workers, thread_name_prefix="blueprints-async"
    )
    rest_sources = RestSources.of(settings)
    renderers = RenderPool.from_settings(settings)
    results = ResolutionResults(db)
    sources = Sources(rest_sources, results, dictionary.definition)
    deploy_pool = ThreadPoolExecutor(
        max_workers=settings.deploy_concurrency, thread_name_prefix="blueprints-deploy"
    )
    deploy_sessions = SessionPool(settings.deploy_session_idle_s)
    components: dict[str, Component] = {
        RESOLUTION: ResourceResolution(results, sources, renderers),
        DELETION: ResourceDeletion(results),
        SNAPSHOTS: ConfigSnapshotsExecutor(snapshots),
        NETCONF_EXECUTOR: NetconfExecutor(
            deploy.devices, deploy.templates.find, deploy_pool, deploy_sessions
        ),
    }
    engine = Engine(components, unsupported, step_pool, expansion)
    audit = ExecutionAudit(db, settings.execution_audit_retention_s, settings.instance_name)
    async_limit = settings.execution_async_workers + settings.execution_queue
    executions = Executions(models, engine, audit, async_pool, async_limit, run_pool.retry_after_s)
    return _Execution(
        executions=executions,
        execution_audit=audit,
        run_pool=run_pool,
        request_limits=RequestLimits(settings.execution_max_body_bytes, settings.execution_max_body_depth),
        step_pool=step_pool,
        async_pool=async_pool,
        rest_sources=rest_sources,
        renderers=renderers,
        deploy_pool=deploy_pool,
        deploy_sessions=deploy_sessions,
    )


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Interrupted executions failed at start; the execution pools, REST sources and template
    renderers closed at the end, and the NETCONF sessions kept open."""
    objects = OBJECTS.of(app)
    await anyio.to_thread.run_sync(objects.execution_audit.fail_interrupted)
    try:
        yield
    finally:
        await anyio.to_thread.run_sync(lambda: objects.async_pool.shutdown(wait=True))
        objects.run_pool.shutdown()
        objects.step_pool.shutdown(wait=False, cancel_futures=True)
        objects.rest_sources.close()
        objects.renderers.close()
        objects.deploy_pool.shutdown(wait=False, cancel_futures=True)
        await anyio.to_thread.run_sync(objects.deploy_sessions.close)
