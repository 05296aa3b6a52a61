"""The bus controller app: its routers, its service objects and the outside services' clients.

The service objects that provision another service (the file-distribution service, the message
routers, the authz service) get its client at construction. The lifespan runs the background
reconcile of the message routers and authz every ``bus_reconcile_s`` and closes every outside
client when the app stops.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..access.platform import BUS, MIRROR, credential
from ..settings import Settings
from ..store.db import Database
from ..store.generations import Generation
from ..store.secrets import sealer_for
from ..web.app import build_app
from ..web.tls import verifying_context
from .bridges import Bridges, limits_of
from .bus_settings import BusSettingsService
from .canonical_path_middleware import CanonicalPathMiddleware
from .clients import Clients
from .clusters import Clusters
from .deps import OBJECTS, BusObjects
from .feeds import Feeds
from .locations import SiteLocations
from .outbound.authz.client import AuthzClient
from .outbound.authz.provisioning import TopicRoles
from .outbound.distribution.client import Account, DistributionClient
from .outbound.distribution.nodes import DistributionNodes
from .outbound.distribution.provisioning import DistributionProvisioner
from .outbound.router.client import RouterClient
from .outbound.router.provisioning import RouterProvisioner
from .outbound.router.verification import RouterVerifier
from .publishers import Publishers
from .routes import (
    bridges,
    bus_settings,
    clients,
    clusters,
    distribution_nodes,
    feeds,
    locations,
    publishers,
    subscribers,
    topics,
)
from .spec import SPEC
from .subscribers import Subscribers
from .tables import TOPOLOGY_SCOPE, changes, generations
from .topics import Topics


def distribution_account(settings: Settings) -> Account:
    """Who the bus is to the distribution service: svc.bus, or the bus_dr_* settings."""
    user, password = credential(settings, BUS, settings.bus_dr_user, settings.bus_dr_password)
    return Account(user=user, password=password, subscriber=settings.bus_dr_subscriber)


def router_client(settings: Settings) -> RouterClient:
    """The client of the message routers: svc.bus, or the bus_router_* settings."""
    user, password = credential(settings, BUS, settings.bus_router_user, settings.bus_router_password)
    return RouterClient(
        user, password, settings.bus_router_timeout_s, verifying_context(settings.bus_ca_bundle)
    )


def mirror_identity(settings: Settings) -> str:
    """What the target routers' mirror agents publish as: granted producer on bridged topics."""
    return settings.bus_mirror_identity or settings.router_mirror_user or MIRROR.name


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The outside services' clients, closed at the end (the kernel has stopped the jobs before)."""
    objects = OBJECTS.of(app)
    try:
        yield
    finally:
        for client in objects.outside_clients:
            client.close()


def create_app(settings: Settings) -> FastAPI:
    routers = [
        bus_settings.router,
        locations.router,
        distribution_nodes.router,
        clusters.router,
        topics.router,
        clients.router,
        bridges.router,
        feeds.router,
        publishers.router,
        subscribers.router,
    ]
    app = build_app(SPEC, settings, routers=routers, lifespan=lifespan)
    app.add_middleware(CanonicalPathMiddleware)  # outermost: see its docstring
    objects = OBJECTS.install(app, _objects(app.state.db, settings))
    # Retry what the routers did not accept, verify what they did (one instance at a time), on
    # the kernel's job runner: per-job metrics, /health DEGRADED past its bound.
    app.state.jobs.every("router-reconcile", objects.reconcile_s, objects.router_verifier.reconcile)
    return app


def _objects(db: Database, settings: Settings) -> BusObjects:
    limits = limits_of(settings)
    tls = verifying_context(settings.bus_ca_bundle)
    distribution_client = DistributionClient(distribution_account(settings), settings.bus_dr_timeout_s, tls)
    routers_client = router_client(settings)
    authz_client = AuthzClient.of(settings)
    distribution = DistributionProvisioner(db, distribution_client, sealer_for(settings))
    routers = RouterProvisioner(
        db, routers_client, TopicRoles(db, authz_client), limits.central_cname, mirror_identity(settings)
    )
    return BusObjects(
        bus_settings=BusSettingsService(db, routers),
        site_locations=SiteLocations(db, limits, routers),
        distribution_nodes=DistributionNodes(db, distribution),
        clusters=Clusters(db, limits, routers),
        topics=Topics(db, settings, routers),
        clients=Clients(db, limits, routers),
        bridges=Bridges(db, limits, routers),
        feeds=Feeds(db, distribution),
        publishers=Publishers(db, distribution),
        subscribers=Subscribers(db, distribution),
        topology=Generation(db, generations, TOPOLOGY_SCOPE, changes=changes),
        router_verifier=RouterVerifier(routers),
        reconcile_s=settings.bus_reconcile_s,
        outside_clients=(distribution_client, routers_client, authz_client),
    )
