"""The file-distribution service's objects (:mod:`netplatform.web.registry`) and the typed
dependencies of its routes: the objects and per-request values."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from ..access.directory import AccessDirectory
from ..store.generations import Generation
from ..web.registry import Registry
from ..web.replay import replayable
from .access import EXCLUDE_AUTHZ, ON_BEHALF_OF, ON_BEHALF_OF_GROUP, Caller
from .acknowledgements import Acknowledgements
from .delivery.engine import DeliveryEngine
from .delivery.metrics import DeliveryMetrics
from .feed_provisioning import Provisioning
from .forwarding import Forwarding
from .links import positive_id
from .logs.book import Logbook
from .logs.retention import LogRetention
from .nodes import NodeRegistry
from .publish_service import PublishService
from .publishing import Publisher
from .routing import Routing
from .sites.central import CentralSide
from .spool_space import SpoolSpace
from .tables import feed_object, subscription_object


@dataclass(frozen=True)
class DistributionObjects:
    """The file-distribution service's objects, built once by ``create_app``: the service objects
    of its routes, the generation of the provisioning its GET answers are replayed under, and the
    background work the lifespan runs (the node registry, the delivery engine, the spool-space
    guard, log retention)."""

    provisioning: Provisioning
    provisioned: Generation
    publisher: Publisher
    publishing: PublishService  # the publish routes' walk: admit, route, receive, commit, wake
    delivery: DeliveryEngine
    delivery_metrics: DeliveryMetrics
    logbook: Logbook
    nodes: NodeRegistry
    routing: Routing
    forwarding: Forwarding
    acknowledgements: Acknowledgements
    spool_space: SpoolSpace
    log_retention: LogRetention
    central: CentralSide  # what this node serves edge nodes (distribution/sites/central.py)


OBJECTS = Registry(DistributionObjects)

READ_METHODS = frozenset({"GET", "HEAD"})
"""Requests that do nothing with whom the on-behalf-of header names (:meth:`.access.Caller.from_headers`)."""


async def public_base_url(request: Request) -> str:
    """Where links point: ``NETPLATFORM_DISTRIBUTION_PUBLIC_URL``, else scheme://host:port of the request."""
    configured: str | None = request.app.state.settings.distribution_public_url
    return (configured or str(request.base_url)).rstrip("/")


async def caller(
    request: Request,
    on_behalf_of: Annotated[
        str | None,
        Header(
            alias=ON_BEHALF_OF,
            description="Whom the caller acts for (1-8 characters): anyone, from an identity holding "
            "platform.distribution.actas (required from it); else the caller itself, or left out",
        ),
    ] = None,
    on_behalf_of_group: Annotated[
        str | None,
        Header(
            alias=ON_BEHALF_OF_GROUP,
            description="Group id; same group counts as owner (only from an identity holding "
            "platform.distribution.actas)",
        ),
    ] = None,
    exclude_authz: Annotated[
        str | None,
        Header(
            alias=EXCLUDE_AUTHZ,
            description="With NETPLATFORM_DISTRIBUTION_AUTHZ on: required to create a feed; true: a "
            "legacy feed (owner rule, endpoint ids), anything else: a feed governed by permissions",
        ),
    ] = None,
) -> Caller:
    """The caller of a feed or subscription route (400 when the on-behalf-of header is unusable;
    on a write, 403 when it names someone the authenticated identity may not act for), with what
    that identity holds (the per-feed permission checks use it)."""
    user: str = request.state.user
    access: AccessDirectory = request.app.state.access
    return Caller.from_headers(
        on_behalf_of,
        on_behalf_of_group,
        user=user,
        grants=await access.grants(user),
        exclude_authz=exclude_authz,
        writing=request.method not in READ_METHODS,
    )


ProvisioningDep = Annotated[Provisioning, OBJECTS.depends(Provisioning, lambda o: o.provisioning)]
PublisherDep = Annotated[Publisher, OBJECTS.depends(Publisher, lambda o: o.publisher)]
PublishServiceDep = Annotated[PublishService, OBJECTS.depends(PublishService, lambda o: o.publishing)]
DeliveryEngineDep = Annotated[DeliveryEngine, OBJECTS.depends(DeliveryEngine, lambda o: o.delivery)]
DeliveryMetricsDep = Annotated[
    DeliveryMetrics, OBJECTS.depends(DeliveryMetrics, lambda o: o.delivery_metrics)
]
LogbookDep = Annotated[Logbook, OBJECTS.depends(Logbook, lambda o: o.logbook)]
NodeRegistryDep = Annotated[NodeRegistry, OBJECTS.depends(NodeRegistry, lambda o: o.nodes)]
RoutingDep = Annotated[Routing, OBJECTS.depends(Routing, lambda o: o.routing)]
ForwardingDep = Annotated[Forwarding, OBJECTS.depends(Forwarding, lambda o: o.forwarding)]
AcknowledgementsDep = Annotated[
    Acknowledgements, OBJECTS.depends(Acknowledgements, lambda o: o.acknowledgements)
]
CentralSideDep = Annotated[CentralSide, OBJECTS.depends(CentralSide, lambda o: o.central)]
PublicBaseUrlDep = Annotated[str, Depends(public_base_url)]
CallerDep = Annotated[Caller, Depends(caller)]

REPLAYABLE = replayable(OBJECTS.pick(lambda o: o.provisioned))
"""For GET routes whose answer is a function of the request and the stored feeds and
subscriptions alone: replayed while those stand (:mod:`netplatform.web.replay`)."""


def _object(path_param: str, key: Callable[[int], str]) -> Callable[[Request], str | None]:
    def object_of(request: Request) -> str | None:
        number = positive_id(request.path_params.get(path_param, ""))
        return key(number) if number is not None else None

    return object_of


REPLAYABLE_FEED = replayable(OBJECTS.pick(lambda o: o.provisioned), _object("feed_id", feed_object))
"""For a GET route whose answer reads only the feed row of its ``feed_id``: replayed until that
feed changes (writes to other feeds and subscriptions leave it standing)."""

REPLAYABLE_SUBSCRIPTION = replayable(
    OBJECTS.pick(lambda o: o.provisioned), _object("sub_id", subscription_object)
)
"""For a GET route whose answer reads only the subscription row of its ``sub_id``."""
