"""The message-router app (issue 14): its identity, routes, service objects, and the lifespan of
its engine and mirror agents."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..settings import Settings
from ..web.app import build_app
from ..web.health import HealthCheck
from ..web.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .access import Administrators
from .engines import engine_for
from .engines.base import Engine, EngineUnavailable
from .errors import RouterError, render_error
from .events import Events
from .mirror_agents import MirrorAgents
from .mirror_settings import MirrorSettings
from .mirror_supervisor import LEASE_S, MirrorConfig, MirrorSupervisor
from .topics import Topics

log = logging.getLogger(__name__)

SPEC = ServiceSpec(
    name="router",
    title="netplatform message router",
    version="1.0.0",
    render_error=render_error,
    error_model=RouterError,
    error_descriptions={
        403: "The caller lacks the route's permission, is not on the topic's ACL, or may not "
        "administer the topic",
        404: "No such topic",
        409: "The topic exists",
        503: "The message engine is unavailable",
    },
)

PERMISSIONS = ServicePermissions(SPEC.name)
"""``platform.router.api|topics|read|write`` and ``platform.router.internal|mirror|call``: what
each route declares (routes/*.py). Publish, fetch and topic reads are per object (a topic's ACL)."""


@asynccontextmanager
async def _run_engine(app: FastAPI) -> AsyncIterator[None]:
    """The engine, and the mirror agents on it (stopped first, so they never see it closed)."""
    engine: Engine = app.state.engine
    mirrors: MirrorSupervisor = app.state.mirrors
    try:
        await engine.start()
    except EngineUnavailable as error:
        # Serve anyway: every call connects again, /health answers 503 naming the engine
        # meanwhile, and the mirror agents retry (a router started before its NATS server).
        log.warning("the %s engine is unreachable at start (retried on every call): %s", engine.name, error)
    try:
        await mirrors.start()
        try:
            yield
        finally:
            await mirrors.close()
    finally:
        await engine.close()


def _mirror_config(settings: Settings) -> MirrorConfig:
    owner = settings.first_user()[0]
    return MirrorConfig(
        owner=owner,
        # Local publishing sends no credential anywhere: it is checked as this identity here.
        publisher=settings.router_mirror_user or owner,
        poll_s=settings.router_mirror_poll_ms / 1000,
        retry_s=settings.router_mirror_retry_s,
    )


def create_app(settings: Settings) -> FastAPI:
    # The routes document their errors with SPEC, so they are imported once it exists.
    from .routes import events, mirror, topics

    # events first: the fuzz test walks operations in document order, and a fetch on a topic
    # it created would long-poll for every generated timeout.
    app = build_app(
        SPEC,
        settings,
        routers=[events.router, mirror.router, mirror.agents_router, mirror.settings_router, topics.router],
        lifespan=_run_engine,
    )
    state = app.state
    state.engine = engine_for(settings, state.db)
    state.health.add(HealthCheck("engine", state.engine.name, state.engine.reachable))
    mirror_settings = MirrorSettings(state.db, settings)
    # The bridge-admin restriction follows the effective topic (stored by the bus, or the env's).
    administrators = Administrators(
        settings.router_admin_entries, lambda: mirror_settings.current.admin_topic
    )
    state.topics = Topics(state.db, state.engine, administrators)
    state.events = Events(state.topics, state.engine)
    agents = MirrorAgents(state.db, settings.instance_name, lease_s=LEASE_S)
    state.mirrors = MirrorSupervisor(
        agents,
        mirror_settings,
        state.events,
        state.topics,
        state.engine,
        _mirror_config(settings),
        state.access.roles,
    )
    return app
