"""The bus controller's objects (:mod:`netplatform.web.registry`) and the typed dependencies of
its routes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Protocol

from fastapi import Depends, Request

from ..access.directory import AccessDirectory
from ..store.generations import Generation
from ..web.registry import Registry
from ..web.replay import replayable
from .bridges import Bridges
from .bus_settings import BusSettingsService
from .clients import Clients
from .clusters import Clusters
from .feeds import Feeds
from .locations import SiteLocations
from .outbound.distribution.nodes import DistributionNodes
from .outbound.router.verification import RouterVerifier
from .publishers import Publishers
from .spec import PERMISSIONS
from .subscribers import Subscribers
from .tables import topic_object
from .topics import Topics


class OutsideClient(Protocol):
    """A client of another service, closed when the app stops."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class BusObjects:
    """The bus controller's objects, built once by ``create_app``: the service objects of its
    routes, the generation of the topology its GET answers are replayed under, and what the
    lifespan runs and closes (the reconcile of the routers, the outside services' clients)."""

    bus_settings: BusSettingsService
    site_locations: SiteLocations
    distribution_nodes: DistributionNodes
    clusters: Clusters
    topics: Topics
    clients: Clients
    bridges: Bridges
    feeds: Feeds
    publishers: Publishers
    subscribers: Subscribers
    topology: Generation
    router_verifier: RouterVerifier
    reconcile_s: float
    outside_clients: tuple[OutsideClient, ...]


OBJECTS = Registry(BusObjects)

BusSettingsDep = Annotated[BusSettingsService, OBJECTS.depends(BusSettingsService, lambda o: o.bus_settings)]
SiteLocationsDep = Annotated[SiteLocations, OBJECTS.depends(SiteLocations, lambda o: o.site_locations)]
DistributionNodesDep = Annotated[
    DistributionNodes, OBJECTS.depends(DistributionNodes, lambda o: o.distribution_nodes)
]
ClustersDep = Annotated[Clusters, OBJECTS.depends(Clusters, lambda o: o.clusters)]
TopicsDep = Annotated[Topics, OBJECTS.depends(Topics, lambda o: o.topics)]
ClientsDep = Annotated[Clients, OBJECTS.depends(Clients, lambda o: o.clients)]
BridgesDep = Annotated[Bridges, OBJECTS.depends(Bridges, lambda o: o.bridges)]
FeedsDep = Annotated[Feeds, OBJECTS.depends(Feeds, lambda o: o.feeds)]
PublishersDep = Annotated[Publishers, OBJECTS.depends(Publishers, lambda o: o.publishers)]
SubscribersDep = Annotated[Subscribers, OBJECTS.depends(Subscribers, lambda o: o.subscribers)]


def writes(resource: str) -> Callable[[Request], Awaitable[bool]]:
    """Whether the caller holds ``platform.bus.api|<resource>|write``: a reader's answers carry no
    ``userpwd``, a writer's a mask (routes/_common.disclosed)."""
    permission = PERMISSIONS.write(resource)

    async def caller_writes(request: Request) -> bool:
        access: AccessDirectory = request.app.state.access
        return await access.allows(request.state.user, permission)

    return caller_writes


FeedsWriterDep = Annotated[bool, Depends(writes("feeds"))]
PubsWriterDep = Annotated[bool, Depends(writes("dr_pubs"))]
SubsWriterDep = Annotated[bool, Depends(writes("dr_subs"))]

REPLAYABLE = replayable(OBJECTS.pick(lambda o: o.topology))
"""Every GET answer of the bus is a function of the request and the topology alone: set on
each router (``routes/_common.new_router``), replayed while the topology stands
(:mod:`netplatform.web.replay`)."""


def _topic_of(request: Request) -> str | None:
    fqtn = request.path_params.get("topicId")
    return topic_object(fqtn) if isinstance(fqtn, str) else None


REPLAYABLE_TOPIC = replayable(OBJECTS.pick(lambda o: o.topology), _topic_of)
"""For a GET route whose answer reads only its ``topicId``'s topic row and that topic's clients:
replayed until that topic changes (writes to other topics leave it standing)."""
