"""Typed dependencies of the blueprint catalog routes: one per service object, and the route table."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ..web.replay import replayable
from ..web.routes import RouteTable
from .blueprint_models import BlueprintModels
from .config_snapshots import ConfigSnapshots
from .dictionaries import Dictionaries
from .execution.audit import ExecutionAudit
from .execution.executions import Executions
from .model_types import ModelTypes
from .resolved_resources import ResolvedResources
from .resolved_templates import ResolvedTemplates
from .starter_catalog import StarterCatalog


async def blueprint_models(request: Request) -> BlueprintModels:
    service: BlueprintModels = request.app.state.blueprint_models
    return service


async def model_types(request: Request) -> ModelTypes:
    service: ModelTypes = request.app.state.model_types
    return service


async def dictionaries(request: Request) -> Dictionaries:
    service: Dictionaries = request.app.state.dictionaries
    return service


async def config_snapshots(request: Request) -> ConfigSnapshots:
    service: ConfigSnapshots = request.app.state.config_snapshots
    return service


async def resolved_templates(request: Request) -> ResolvedTemplates:
    service: ResolvedTemplates = request.app.state.resolved_templates
    return service


async def resolved_resources(request: Request) -> ResolvedResources:
    service: ResolvedResources = request.app.state.resolved_resources
    return service


async def starter_catalog(request: Request) -> StarterCatalog:
    service: StarterCatalog = request.app.state.starter_catalog
    return service


async def executions(request: Request) -> Executions:
    service: Executions = request.app.state.executions
    return service


async def execution_audit(request: Request) -> ExecutionAudit:
    service: ExecutionAudit = request.app.state.execution_audit
    return service


async def route_table(request: Request) -> RouteTable:
    """Every route of the running app, the kernel's included (the actuator lists them)."""
    table: RouteTable = request.app.state.route_table
    return table


BlueprintModelsDep = Annotated[BlueprintModels, Depends(blueprint_models)]
ModelTypesDep = Annotated[ModelTypes, Depends(model_types)]
DictionariesDep = Annotated[Dictionaries, Depends(dictionaries)]
ConfigSnapshotsDep = Annotated[ConfigSnapshots, Depends(config_snapshots)]
ResolvedTemplatesDep = Annotated[ResolvedTemplates, Depends(resolved_templates)]
ResolvedResourcesDep = Annotated[ResolvedResources, Depends(resolved_resources)]
StarterCatalogDep = Annotated[StarterCatalog, Depends(starter_catalog)]
RouteTableDep = Annotated[RouteTable, Depends(route_table)]
ExecutionsDep = Annotated[Executions, Depends(executions)]
ExecutionAuditDep = Annotated[ExecutionAudit, Depends(execution_audit)]

CATALOG = replayable(lambda request: request.app.state.catalog)
"""For GET routes whose answer is a function of the request and the stored models, model types
and dictionaries alone: replayed while those stand (:mod:`netplatform.web.replay`)."""
