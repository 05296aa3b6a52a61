"""The file-distribution app (spec 4.2): its routes, service objects, and the lifespan of
this instance as a node (spec 1.3): registration, heartbeat, delivery workers, the spool-space
guard and log retention."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Protocol

import anyio
from fastapi import FastAPI
from starlette.middleware import Middleware

from ..settings import Settings
from ..store.generations import Generation
from ..store.secrets import sealer_for
from ..web.app import build_app
from .acknowledgements import Acknowledgements
from .delivery.body import DecompressionLimits
from .delivery.engine import DeliveryEngine
from .delivery.metrics import DeliveryMetrics
from .deps import OBJECTS, DistributionObjects
from .endpoint_secrets import EndpointSecrets
from .feed_provisioning import Provisioning
from .forwarding import Forwarding
from .logs.book import Logbook
from .logs.retention import LogRetention
from .nodes import NodeRegistry
from .publish_service import PublishService
from .publisher_gate import PublisherGate
from .publishing import Publisher
from .routes import acknowledgements, feeds, forward, logs, nodes, publish, routing, sites, subscriptions
from .routing import Routing
from .sites.central import CentralSide
from .sites.edge import CentralLink, EdgeGuard
from .spec import SPEC
from .spool_space import SpoolSpace
from .tables import PROVISIONING_SCOPE, changes, generations

log = logging.getLogger("netplatform.distribution")


class BackgroundWork(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Seal the delivery passwords an earlier version left in clear, register this node (spec 1.3)
    and run the delivery workers; stop in reverse. The heartbeat, the spool-space guard and log
    retention are kernel jobs (web/jobs.py), run while this lifespan is."""
    objects = OBJECTS.of(app)
    sealed = await anyio.to_thread.run_sync(objects.provisioning.seal_clear_passwords)
    if sealed:
        log.info("sealed %d delivery passwords stored in clear by an earlier version", sealed)
    work: list[BackgroundWork] = [objects.nodes, objects.delivery]
    async with AsyncExitStack() as running:
        for part in work:
            await part.start()
            running.push_async_callback(part.stop)
        yield


def create_app(settings: Settings) -> FastAPI:
    app = build_app(
        SPEC,
        settings,
        routers=[
            feeds.router,
            subscriptions.router,
            logs.router,
            publish.router,
            acknowledgements.router,
            nodes.router,
            routing.router,
            forward.router,
            sites.router,
        ],
        lifespan=lifespan,
        middleware=_edge_guard(settings),
    )
    objects = OBJECTS.install(app, _objects(app, settings))
    jobs = app.state.jobs
    jobs.every("node-heartbeat", settings.node_heartbeat_s, objects.nodes.beat)
    jobs.every("spool-space", settings.delivery_spool_check_s, objects.spool_space.relieve)
    jobs.every("log-retention", settings.distribution_log_prune_interval_s, objects.log_retention.prune)
    if settings.distribution_central_url:  # an edge node on its own store (distribution/sites/)
        link = CentralLink(settings, app.state.db, app.state.blobs, objects.nodes)
        jobs.loop("central-provisioning", link.follow)
        jobs.every("central-announce", settings.node_heartbeat_s, link.announce)
        jobs.every("log-shipping", settings.distribution_log_ship_s, link.ship)
    return app


def _edge_guard(settings: Settings) -> list[Middleware]:
    """At an edge node, provisioning changes go to central (distribution/sites/edge.py)."""
    central_url = settings.distribution_central_url
    return [Middleware(EdgeGuard, source=central_url.rstrip("/"))] if central_url else []


def _objects(app: FastAPI, settings: Settings) -> DistributionObjects:
    state = app.state
    db, blobs, node = state.db, state.blobs, settings.instance_name
    nodes = NodeRegistry(db, blobs, settings)
    # Endpoint password hashes and the credentials known to match them, shared by provisioning
    # (which makes them) and publishing (which checks them).
    secrets = EndpointSecrets()
    sealer = sealer_for(settings)  # delivery passwords: sealed by provisioning, opened to present
    delivery_metrics = DeliveryMetrics(state.metrics.registry, db, node)
    spool_space = SpoolSpace(db, blobs, settings, delivery_metrics)
    gate = PublisherGate(state.access, settings.distribution_authz, secrets)
    decompression = DecompressionLimits(
        max_ratio=settings.delivery_decompress_max_ratio,
        max_bytes=settings.delivery_decompress_max_bytes,
        ratio_free_bytes=settings.delivery_decompress_ratio_free_bytes,
    )
    publisher = Publisher(db, blobs, node, spool_space, gate)
    routing = Routing(db, nodes)
    delivery = DeliveryEngine(
        db,
        blobs,
        settings,
        delivery_metrics,
        decompression,
        settings.delivery_privileged_reoffer_s,
        job=state.jobs.record("delivery-workers"),
    )
    return DistributionObjects(
        provisioning=Provisioning(db, blobs, settings, secrets, sealer),
        provisioned=Generation(db, generations, PROVISIONING_SCOPE, changes=changes),
        publisher=publisher,
        publishing=PublishService(publisher, routing, delivery, delivery_metrics),
        delivery=delivery,
        delivery_metrics=delivery_metrics,
        logbook=Logbook(db),
        nodes=nodes,
        routing=routing,
        forwarding=Forwarding(db, blobs, node, spool_space),
        acknowledgements=Acknowledgements(db, blobs, node, sealer),
        spool_space=spool_space,
        log_retention=LogRetention(db, settings),
        central=CentralSide(db),
    )
