"""The message-router app (issue 14): its routes, service objects, and the lifespan of
its engine and mirror agents."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..access.platform import MIRROR
from ..settings import Settings
from ..web.app import build_app
from ..web.health import HealthCheck
from ..web.tls import verifying_context
from .access import Administrators
from .deps import OBJECTS, RouterObjects
from .engines import engine_for
from .engines.base import EngineUnavailable
from .events import Events
from .mirror_agents import MirrorAgents
from .mirror_settings import MirrorSettings
from .mirror_supervisor import LEASE_S, MirrorConfig, MirrorSupervisor
from .routes import access, events, mirror, topics
from .spec import SPEC
from .topics import Topics

log = logging.getLogger(__name__)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The engine, and the mirror agents on it (stopped first, so they never see it closed)."""
    objects = OBJECTS.of(app)
    engine, mirrors = objects.engine, objects.mirrors
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
    return MirrorConfig(
        owner=MIRROR.name,
        # Local publishing sends no credential anywhere: it is checked as this identity here.
        publisher=settings.router_mirror_user or MIRROR.name,
        poll_s=settings.router_mirror_poll_ms / 1000,
        retry_s=settings.router_mirror_retry_s,
        tls=verifying_context(settings.router_mirror_ca_bundle),
    )


def create_app(settings: Settings) -> FastAPI:
    # events first: the fuzz test walks operations in document order, and a fetch on a topic
    # it created would long-poll for every generated timeout.
    app = build_app(
        SPEC,
        settings,
        routers=[
            events.router,
            mirror.router,
            mirror.agents_router,
            mirror.settings_router,
            topics.router,
            access.router,
        ],
        lifespan=lifespan,
    )
    _background_jobs(app, OBJECTS.install(app, _objects(app, settings)))
    return app


def _objects(app: FastAPI, settings: Settings) -> RouterObjects:
    state = app.state
    engine = engine_for(settings, state.db)
    state.health.add(HealthCheck("engine", engine.name, engine.reachable))
    mirror_settings = MirrorSettings(state.db, settings)
    # The bridge-admin restriction follows the effective topic (stored by the bus, or the env's).
    administrators = Administrators(
        state.access.allows, settings.router_admin_identities, lambda: mirror_settings.current.admin_topic
    )
    topics = Topics(state.db, engine, administrators)
    events = Events(topics, engine)
    agents = MirrorAgents(state.db, settings.instance_name, lease_s=LEASE_S)
    copies = state.jobs.record("mirror-copies")  # the agents' copy tasks and admin reader
    mirrors = MirrorSupervisor(
        agents, mirror_settings, events, topics, engine, _mirror_config(settings), state.access.roles, copies
    )
    return RouterObjects(engine, topics, events, mirrors)


def _background_jobs(app: FastAPI, objects: RouterObjects) -> None:
    """The engine's periodic work and the mirror supervisor, on the kernel's job runner (per-job
    metrics, /health DEGRADED past a job's bound); started once the lifespan has started both."""
    jobs = app.state.jobs
    for work in objects.engine.background():
        jobs.every(work.name, work.interval_s, work.work)
    jobs.loop("mirror-supervisor", objects.mirrors.supervise)
