"""The bus controller app: its spec, its routers, and the client of the distribution service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.service import ServiceSpec
from .drprov import Account, DistributionClient
from .errors import ApiErrorBody, render_error
from .paths import CanonicalPathMiddleware
from .provisioning import Provisioner
from .routes import bridge, clients, clusters, feeds, locations, nodes, pubs, settings, subs, topics

SPEC = ServiceSpec(
    name="bus",
    title="netplatform bus controller",
    version="1.1.0",
    render_error=render_error,
    error_model=ApiErrorBody,
)

ROUTERS = [
    settings.router,
    locations.router,
    nodes.router,
    clusters.router,
    topics.router,
    clients.router,
    bridge.router,
    feeds.router,
    pubs.router,
    subs.router,
]


def distribution_account(service_settings: Settings) -> Account:
    """The credentials for the distribution service: the bus_dr_* settings, else the first user."""
    first_user, first_password = service_settings.first_user()
    return Account(
        user=service_settings.bus_dr_user or first_user,
        password=service_settings.bus_dr_password or first_password,
        subscriber=service_settings.bus_dr_subscriber,
    )


def create_app(service_settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        client = DistributionClient(distribution_account(service_settings), service_settings.bus_dr_timeout_s)
        app.state.bus_provisioner = Provisioner(app.state.db, client)
        try:
            yield
        finally:
            client.close()

    app = build_app(SPEC, service_settings, routers=ROUTERS, lifespan=lifespan)
    app.add_middleware(CanonicalPathMiddleware)
    return app
