"""Typed dependencies of the bus controller routes: one per service object."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .bridges import Bridges
from .bus_settings import BusSettingsService
from .clients import Clients
from .clusters import Clusters
from .distribution_nodes import DistributionNodes
from .feeds import Feeds
from .locations import SiteLocations
from .publishers import Publishers
from .subscribers import Subscribers
from .topics import Topics


async def bus_settings(request: Request) -> BusSettingsService:
    service: BusSettingsService = request.app.state.bus_settings
    return service


async def site_locations(request: Request) -> SiteLocations:
    service: SiteLocations = request.app.state.site_locations
    return service


async def distribution_nodes(request: Request) -> DistributionNodes:
    service: DistributionNodes = request.app.state.distribution_nodes
    return service


async def clusters(request: Request) -> Clusters:
    service: Clusters = request.app.state.clusters
    return service


async def topics(request: Request) -> Topics:
    service: Topics = request.app.state.topics
    return service


async def clients(request: Request) -> Clients:
    service: Clients = request.app.state.clients
    return service


async def bridges(request: Request) -> Bridges:
    service: Bridges = request.app.state.bridges
    return service


async def feeds(request: Request) -> Feeds:
    service: Feeds = request.app.state.feeds
    return service


async def publishers(request: Request) -> Publishers:
    service: Publishers = request.app.state.publishers
    return service


async def subscribers(request: Request) -> Subscribers:
    service: Subscribers = request.app.state.subscribers
    return service


BusSettingsDep = Annotated[BusSettingsService, Depends(bus_settings)]
SiteLocationsDep = Annotated[SiteLocations, Depends(site_locations)]
DistributionNodesDep = Annotated[DistributionNodes, Depends(distribution_nodes)]
ClustersDep = Annotated[Clusters, Depends(clusters)]
TopicsDep = Annotated[Topics, Depends(topics)]
ClientsDep = Annotated[Clients, Depends(clients)]
BridgesDep = Annotated[Bridges, Depends(bridges)]
FeedsDep = Annotated[Feeds, Depends(feeds)]
PublishersDep = Annotated[Publishers, Depends(publishers)]
SubscribersDep = Annotated[Subscribers, Depends(subscribers)]
