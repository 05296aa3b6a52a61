"""The blueprint catalog's objects (:mod:`netplatform.web.registry`) and the typed dependencies of
its routes: one per object, and the route table."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from ..access.directory import AccessDirectory
from ..store.generations import Generation
from ..web.registry import Registry
from ..web.replay import replayable
from ..web.routes import RouteTable
from .blueprint_models import BlueprintModels
from .config_snapshots import ConfigSnapshots
from .devices import Devices
from .dictionaries import Dictionaries
from .execution.audit import ExecutionAudit
from .execution.executions import Executions
from .execution.executors import Executor
from .execution.netconf.sessions import SessionPool
from .execution.render_pool import RenderPool
from .execution.rest_sources import RestSources
from .execution.run_pool import RunPool
from .execution.wire import RequestLimits
from .model_types import ModelTypes
from .resolved_resources import ResolvedResources
from .resolved_templates import ResolvedTemplates
from .starter_catalog import StarterCatalog


@dataclass(frozen=True)
class BlueprintsObjects:
    """The blueprint catalog's objects, built once by ``create_app``: the catalog's stores, the
    generation its GET answers are replayed under, and the execution service with the pools and
    REST sources its lifespan closes (``run_pool``: the threads runs use, none of the threads the
    other services share)."""

    blueprint_models: BlueprintModels
    model_types: ModelTypes
    dictionaries: Dictionaries
    config_snapshots: ConfigSnapshots
    resolved_templates: ResolvedTemplates
    resolved_resources: ResolvedResources
    devices: Devices
    starter_catalog: StarterCatalog
    catalog: Generation
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


OBJECTS = Registry(BlueprintsObjects)


async def route_table(request: Request) -> RouteTable:
    """Every route of the running app, the kernel's included (the actuator lists them)."""
    table: RouteTable = request.app.state.route_table
    return table


async def executor(request: Request) -> Executor:
    """The caller of a run, with the kernel's directory that decides what it may run."""
    access: AccessDirectory = request.app.state.access
    return Executor(request.state.user, access)


BlueprintModelsDep = Annotated[
    BlueprintModels, OBJECTS.depends(BlueprintModels, lambda o: o.blueprint_models)
]
ModelTypesDep = Annotated[ModelTypes, OBJECTS.depends(ModelTypes, lambda o: o.model_types)]
DictionariesDep = Annotated[Dictionaries, OBJECTS.depends(Dictionaries, lambda o: o.dictionaries)]
ConfigSnapshotsDep = Annotated[
    ConfigSnapshots, OBJECTS.depends(ConfigSnapshots, lambda o: o.config_snapshots)
]
ResolvedTemplatesDep = Annotated[
    ResolvedTemplates, OBJECTS.depends(ResolvedTemplates, lambda o: o.resolved_templates)
]
ResolvedResourcesDep = Annotated[
    ResolvedResources, OBJECTS.depends(ResolvedResources, lambda o: o.resolved_resources)
]
StarterCatalogDep = Annotated[StarterCatalog, OBJECTS.depends(StarterCatalog, lambda o: o.starter_catalog)]
RouteTableDep = Annotated[RouteTable, Depends(route_table)]
DevicesDep = Annotated[Devices, OBJECTS.depends(Devices, lambda o: o.devices)]
ExecutionsDep = Annotated[Executions, OBJECTS.depends(Executions, lambda o: o.executions)]
ExecutionAuditDep = Annotated[ExecutionAudit, OBJECTS.depends(ExecutionAudit, lambda o: o.execution_audit)]
RunPoolDep = Annotated[RunPool, OBJECTS.depends(RunPool, lambda o: o.run_pool)]
RequestLimitsDep = Annotated[RequestLimits, OBJECTS.depends(RequestLimits, lambda o: o.request_limits)]
ExecutorDep = Annotated[Executor, Depends(executor)]

REPLAYABLE = replayable(OBJECTS.pick(lambda o: o.catalog))
"""For GET routes whose answer is a function of the request and the stored models, model types
and dictionaries alone: replayed while those stand (:mod:`netplatform.web.replay`)."""
