"""The file-distribution app (spec 4.2): its identity, routes, service objects, and the lifespan of
this instance as a node (spec 1.3): registration, heartbeat, delivery workers, the spool-space
guard and log retention."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Protocol

from fastapi import FastAPI

from ..settings import Settings
from ..store.generations import Generation
from ..web.app import build_app
from ..web.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .acknowledgements import Acknowledgements
from .delivery import DeliveryEngine
from .delivery_body import DecompressionLimits
from .delivery_metrics import DeliveryMetrics
from .endpoint_secrets import EndpointSecrets
from .errors import ERROR_MEDIA_TYPE, render_error
from .feed_provisioning import Provisioning
from .forwarding import Forwarding
from .log_retention import LogRetention
from .logbook import Logbook
from .nodes import NodeRegistry
from .publisher_gate import PublisherGate
from .publishing import Publisher
from .routing import Routing
from .spool_space import SpoolSpace
from .tables import PROVISIONING_SCOPE, generations

SPEC = ServiceSpec(
    name="distribution",
    title="netplatform file distribution",
    version="1.0.0",
    render_error=render_error,
    error_media_type=ERROR_MEDIA_TYPE,
)

PERMISSIONS = ServicePermissions("distribution")
"""The service's own API permissions (``platform.distribution.api|feeds|read`` ...) and its
internal routes' (``platform.distribution.internal|forward|call`` ...): docs/distribution.md."""


class BackgroundWork(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@asynccontextmanager
async def _run_node(app: FastAPI) -> AsyncIterator[None]:
    """Register this node and heartbeat (spec 1.3), run the delivery workers, the spool-space guard
    and log retention; stop in reverse."""
    state = app.state
    work: list[BackgroundWork] = [state.nodes, state.delivery, state.spool_space, state.log_retention]
    async with AsyncExitStack() as running:
        for part in work:
            await part.start()
            running.push_async_callback(part.stop)
        yield


def create_app(settings: Settings) -> FastAPI:
    # The routes document their errors with SPEC, so they are imported once it exists.
    from .routes import acknowledgements, feeds, forward, logs, nodes, publish, routing, subscriptions

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
        ],
        lifespan=_run_node,
    )
    state = app.state
    node = settings.instance_name
    state.nodes = NodeRegistry(state.db, state.blobs, settings)
    state.routing = Routing(state.db, state.nodes)
    # Endpoint password hashes and the credentials known to match them, shared by provisioning
    # (which makes them) and publishing (which checks them).
    secrets = EndpointSecrets()
    state.provisioning = Provisioning(state.db, state.blobs, settings, secrets)
    state.provisioned = Generation(state.db, generations, PROVISIONING_SCOPE)
    state.delivery_metrics = DeliveryMetrics(state.metrics.registry, state.db, node)
    state.spool_space = SpoolSpace(state.db, state.blobs, settings, state.delivery_metrics)
    gate = PublisherGate(state.access, settings.distribution_authz, secrets)
    state.publisher = Publisher(state.db, state.blobs, node, state.spool_space, gate)
    state.forwarding = Forwarding(state.db, state.blobs, node, state.spool_space)
    state.logbook = Logbook(state.db)
    state.log_retention = LogRetention(state.db, settings)
    state.acknowledgements = Acknowledgements(state.db, state.blobs, node)
    decompression = DecompressionLimits(
        max_ratio=settings.delivery_decompress_max_ratio,
        max_bytes=settings.delivery_decompress_max_bytes,
        ratio_free_bytes=settings.delivery_decompress_ratio_free_bytes,
    )
    state.delivery = DeliveryEngine(
        state.db,
        state.blobs,
        settings,
        state.delivery_metrics,
        decompression,
        settings.delivery_privileged_reoffer_s,
    )
    return app
