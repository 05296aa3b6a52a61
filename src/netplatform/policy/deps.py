"""The policy service's objects (:mod:`netplatform.web.registry`) and the typed dependencies of
its routes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Request

from ..web.registry import Registry
from ..web.replay import replayable
from .catalog import Catalog
from .healthcheck import HealthCheck
from .node_templates import NodeTemplates
from .statistics import Statistics
from .tables import policy_type_object


@dataclass(frozen=True)
class PolicyObjects:
    """The policy service's objects, built once by ``create_app``."""

    catalog: Catalog
    node_templates: NodeTemplates
    statistics: Statistics
    health_check: HealthCheck


OBJECTS = Registry(PolicyObjects)

CatalogDep = Annotated[Catalog, OBJECTS.depends(Catalog, lambda o: o.catalog)]
NodeTemplatesDep = Annotated[NodeTemplates, OBJECTS.depends(NodeTemplates, lambda o: o.node_templates)]
StatisticsDep = Annotated[Statistics, OBJECTS.depends(Statistics, lambda o: o.statistics)]
HealthCheckDep = Annotated[HealthCheck, OBJECTS.depends(HealthCheck, lambda o: o.health_check)]
health_check_of = OBJECTS.pick(lambda o: o.health_check)
"""The health check as a plain function of the request, for the shortcut that answers
``GET /healthcheck`` before the framework routes it (no dependencies run there)."""

REPLAYABLE = replayable(OBJECTS.pick(lambda o: o.catalog.store.answers.generation))
"""For GET routes whose answer is a function of the request and the stored policy entities
alone: replayed while those stand (:mod:`netplatform.web.replay`)."""


def _policy_type_of(request: Request) -> str | None:
    name = request.path_params.get("policyTypeId")
    return policy_type_object(name) if isinstance(name, str) else None


REPLAYABLE_POLICY_TYPE = replayable(
    OBJECTS.pick(lambda o: o.catalog.store.answers.generation), _policy_type_of
)
"""For a GET route whose answer shows versions of its ``policyTypeId`` with their ancestors and
the data types they need: replayed until a write records that type's key (its own, or one of
its ancestors': see :meth:`.repository.Repository.changed_objects`) or every object's."""
