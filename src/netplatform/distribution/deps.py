"""Typed dependencies of the file-distribution routes: the service objects and per-request values."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from ..access.directory import AccessDirectory
from ..web.replay import replayable
from .access import EXCLUDE_AUTHZ, ON_BEHALF_OF, ON_BEHALF_OF_GROUP, Caller
from .acknowledgements import Acknowledgements
from .delivery import DeliveryEngine
from .delivery_metrics import DeliveryMetrics
from .feed_provisioning import Provisioning
from .forwarding import Forwarding
from .logbook import Logbook
from .nodes import NodeRegistry
from .publishing import Publisher
from .routing import Routing


async def provisioning(request: Request) -> Provisioning:
    service: Provisioning = request.app.state.provisioning
    return service


async def publisher(request: Request) -> Publisher:
    service: Publisher = request.app.state.publisher
    return service


async def delivery_engine(request: Request) -> DeliveryEngine:
    engine: DeliveryEngine = request.app.state.delivery
    return engine


async def delivery_metrics(request: Request) -> DeliveryMetrics:
    metrics: DeliveryMetrics = request.app.state.delivery_metrics
    return metrics


async def logbook(request: Request) -> Logbook:
    service: Logbook = request.app.state.logbook
    return service


async def node_registry(request: Request) -> NodeRegistry:
    service: NodeRegistry = request.app.state.nodes
    return service


async def routing(request: Request) -> Routing:
    service: Routing = request.app.state.routing
    return service


async def forwarding(request: Request) -> Forwarding:
    service: Forwarding = request.app.state.forwarding
    return service


async def acknowledgements(request: Request) -> Acknowledgements:
    service: Acknowledgements = request.app.state.acknowledgements
    return service


async def public_base_url(request: Request) -> str:
    """Where links point: ``NETPLATFORM_DISTRIBUTION_PUBLIC_URL``, else scheme://host:port of the request."""
    configured: str | None = request.app.state.settings.distribution_public_url
    return (configured or str(request.base_url)).rstrip("/")


async def caller(
    request: Request,
    on_behalf_of: Annotated[
        str | None,
        Header(alias=ON_BEHALF_OF, description="Identity of the caller (1-8 characters); required"),
    ] = None,
    on_behalf_of_group: Annotated[
        str | None, Header(alias=ON_BEHALF_OF_GROUP, description="Group id; same group counts as owner")
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
    """The caller of a feed or subscription route (400 when the on-behalf-of header is unusable),
    with what the authenticated identity holds (the per-feed permission checks use it)."""
    user: str = request.state.user
    access: AccessDirectory = request.app.state.access
    return Caller.from_headers(
        on_behalf_of,
        on_behalf_of_group,
        user=user,
        grants=await access.grants(user),
        exclude_authz=exclude_authz,
    )


ProvisioningDep = Annotated[Provisioning, Depends(provisioning)]
PublisherDep = Annotated[Publisher, Depends(publisher)]
DeliveryEngineDep = Annotated[DeliveryEngine, Depends(delivery_engine)]
DeliveryMetricsDep = Annotated[DeliveryMetrics, Depends(delivery_metrics)]
LogbookDep = Annotated[Logbook, Depends(logbook)]
NodeRegistryDep = Annotated[NodeRegistry, Depends(node_registry)]
RoutingDep = Annotated[Routing, Depends(routing)]
ForwardingDep = Annotated[Forwarding, Depends(forwarding)]
AcknowledgementsDep = Annotated[Acknowledgements, Depends(acknowledgements)]
PublicBaseUrlDep = Annotated[str, Depends(public_base_url)]
CallerDep = Annotated[Caller, Depends(caller)]

PROVISIONED = replayable(lambda request: request.app.state.provisioned)
"""For GET routes whose answer is a function of the request and the stored feeds and
subscriptions alone: replayed while those stand (:mod:`netplatform.web.replay`)."""
