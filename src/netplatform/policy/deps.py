"""Typed dependencies of the policy routes: one per service object.

They are ``async`` because they only read ``app.state``: FastAPI runs a plain ``def``
dependency in a worker thread, a hop that costs more than the cached answers it precedes.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ..web.replay import replayable
from .catalog import Catalog
from .healthcheck import HealthCheck
from .node_templates import NodeTemplates
from .statistics import Statistics


async def catalog(request: Request) -> Catalog:
    service: Catalog = request.app.state.catalog
    return service


async def node_templates(request: Request) -> NodeTemplates:
    service: NodeTemplates = request.app.state.node_templates
    return service


async def statistics(request: Request) -> Statistics:
    service: Statistics = request.app.state.statistics
    return service


async def health_check(request: Request) -> HealthCheck:
    service: HealthCheck = request.app.state.health_check
    return service


CatalogDep = Annotated[Catalog, Depends(catalog)]
NodeTemplatesDep = Annotated[NodeTemplates, Depends(node_templates)]
StatisticsDep = Annotated[Statistics, Depends(statistics)]
HealthCheckDep = Annotated[HealthCheck, Depends(health_check)]

ENTITIES = replayable(lambda request: request.app.state.catalog.store.answers.generation)
"""For GET routes whose answer is a function of the request and the stored policy entities
alone: replayed while those stand (:mod:`netplatform.web.replay`)."""
