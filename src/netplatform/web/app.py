"""``build_app``: one FastAPI application per service, with the kernel around it.

The kernel gives every service the same ground: Basic authentication, request ids, the
access log, metrics, body limits, a health route, one OpenAPI document, and one path from any
failure to the service's own error body (validation failures are 400, never the framework's
422).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware
from starlette.types import Scope

from ..access.directory import directory_for, register_authentication_metrics
from ..access.errors import DecisionRefused
from ..access.permissions import ServicePermissions
from ..access.replica import Replica, register_replica_metrics
from ..settings import Settings
from ..store.blobs import BlobStore
from ..store.db import database_for
from ..store.errors import WriteConflict
from . import errors
from .answers import reply
from .auth import PUBLIC
from .health import HealthProbe, HealthShortcut
from .jobs import Jobs
from .looplag import probing, register_loop_lag_metrics
from .metrics import CONTENT_TYPE_LATEST, Metrics
from .middleware.kernel import KernelMiddleware
from .openapi import document_kernel_conventions
from .permissions import requires
from .replay import ReplayCounts, ReplayShortcut, register_replay_metrics
from .requestid import REQUEST_ID_HEADER
from .routes import RouteTable
from .service import ServiceSpec

log = logging.getLogger("netplatform")

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]

HEALTH_PATH = "/health"

_STATUS_ERRORS: dict[int, type[errors.ApiError]] = {
    400: errors.BadRequest,
    401: errors.Unauthorized,
    403: errors.Forbidden,
    404: errors.NotFound,
    405: errors.MethodNotAllowed,
    406: errors.NotAcceptable,
    409: errors.Conflict,
    413: errors.PayloadTooLarge,
    415: errors.UnsupportedMediaType,
    429: errors.TooManyRequests,
}


def build_app(
    spec: ServiceSpec,
    settings: Settings,
    routers: Sequence[APIRouter],
    *,
    lifespan: Lifespan | None = None,
    middleware: Sequence[Middleware] = (),
) -> FastAPI:
    """Assemble a service app: its routers inside the kernel's middleware and handlers.

    ``lifespan`` runs inside the kernel's own, which starts the event-loop lag probe and, once the
    service's lifespan has set up, the background jobs (stopped before it tears down); use it
    for preloaded data and what the jobs need. The database is the process's
    (``database_for``: shared by every app of the process, made before any of them starts,
    never closed by an app), so it is there for the whole lifespan.
    ``middleware`` is the service's own, run inside the kernel's request context (request id
    and authenticated user known, its responses carrying the kernel's headers), outermost first.
    """
    database = database_for(settings)
    app = FastAPI(
        title=spec.title,
        version=spec.version,
        lifespan=_kernel_lifespan(spec, lifespan),
        docs_url="/docs",
        redoc_url=None,
        openapi_url="/openapi.json",
        # A slash-redirect (307) is a status no operation documents; services that accept
        # trailing slashes say so with routes of their own.
        redirect_slashes=False,
    )
    app.state.spec = spec
    app.state.settings = settings
    app.state.db = database
    app.state.blobs = BlobStore(settings.blob_dir)
    app.state.metrics = Metrics(spec.name)
    app.state.health = HealthProbe(database)
    # Who the caller is and what they may do, shared by every app of the process.
    app.state.access = directory_for(settings, database)
    register_authentication_metrics(app.state.metrics.registry, spec.name, app.state.access)
    app.state.replays = ReplayCounts()
    app.state.jobs = Jobs(spec.name, app.state.metrics.registry)
    replica = app.state.access.replica
    if replica is not None:  # this site follows a central authz (access/replica.py)
        app.state.jobs.loop("authz-replica", replica.follow)
        register_replica_metrics(app.state.metrics.registry, replica)
    register_replay_metrics(app.state.metrics.registry, spec.name, app.state.replays)
    app.state.loop_lag = register_loop_lag_metrics(app.state.metrics.registry)

    all_routers = [_kernel_router(spec), *routers]
    for router in all_routers:
        app.include_router(router)
    _install_error_handlers(app, spec)
    app.state.route_table = RouteTable(all_routers)
    _install_middleware(app, spec, settings, app.state.route_table, middleware)
    app.openapi = lambda: document_kernel_conventions(app, spec)  # type: ignore[method-assign]
    return app


def _kernel_lifespan(spec: ServiceSpec, inner: Lifespan | None) -> Lifespan:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # One probe per event loop, shared by every app the loop serves (web/looplag.py).
        async with probing() as probe:
            app.state.loop_lag.probe = probe
            log.info("%s service ready", spec.name)
            async with contextlib.AsyncExitStack() as stack:
                if inner is not None:
                    await stack.enter_async_context(inner(app))
                # The background jobs run inside the service's own lifespan: started once it
                # has set up, stopped before it tears down.
                app.state.jobs.start()
                stack.push_async_callback(app.state.jobs.stop)
                yield
            log.info("%s service stopped", spec.name)

    return lifespan


def _install_middleware(
    app: FastAPI, spec: ServiceSpec, settings: Settings, routes: RouteTable, own: Sequence[Middleware]
) -> None:
    # add_middleware wraps: the last added is the outermost.
    replay = Middleware(
        ReplayShortcut,
        kernel_headers=[name.lower().encode("latin-1") for name in (REQUEST_ID_HEADER, *spec.echoed_headers)],
        counts=app.state.replays,
    )
    for entry in reversed([*own, _health_shortcut(app, spec, routes), replay]):
        app.add_middleware(entry.cls, *entry.args, **entry.kwargs)
    limit = settings.max_body_bytes
    if spec.max_body_bytes is not None:
        limit = min(limit, spec.max_body_bytes)
    app.add_middleware(
        KernelMiddleware,
        spec=spec,
        routes=routes,
        access=app.state.access,
        limit=limit,
        metrics=app.state.metrics,
        access_log=settings.access_log,
    )


async def _health_answer(
    spec: ServiceSpec, probe: HealthProbe, jobs: Jobs, replica: Replica | None
) -> Response:
    """UP; DOWN (503) when what the service cannot serve without is unreachable; DEGRADED (200:
    it still serves) while a background job has failed beyond its bound, or while this site's
    central authz does not answer (decisions go on from the replica, within its bound)."""
    health = await probe.health()
    down = health.down
    degraded = jobs.overdue()
    named: dict[str, str] = dict(health.named)
    if replica is not None:
        named["authz"] = replica.describe()
        down = down or replica.stale()
        if (away := replica.away()) is not None:
            degraded.insert(0, away)
    status = "DOWN" if down is not None else "DEGRADED" if degraded else "UP"
    answer = {"service": spec.name, "status": status, **named}
    if down is not None:
        answer["reason"] = down
    elif degraded:
        answer["reason"] = "; ".join(degraded)
    return reply(answer, 503 if down is not None else 200)


def _health_shortcut(app: FastAPI, spec: ServiceSpec, routes: RouteTable) -> Middleware:
    route = next(r for r in routes.routes if r.path == HEALTH_PATH and "GET" in (r.methods or ()))

    async def answer(scope: Scope) -> Response:
        return await _health_answer(spec, app.state.health, app.state.jobs, app.state.access.replica)

    return Middleware(HealthShortcut, path=HEALTH_PATH, route=route, answer=answer)


def _install_error_handlers(app: FastAPI, spec: ServiceSpec) -> None:
    render = spec.render_error

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, errors.ApiError)
        return render(request, exc)

    async def on_validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return render(request, errors.BadRequest(errors.describe_validation_errors(exc.errors())))

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        error_class = _STATUS_ERRORS.get(exc.status_code, errors.ApiError)
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(request.app.state.route_table.allowed_methods(request.scope))
        return render(request, error_class(message, status=exc.status_code, headers=headers))

    async def on_write_conflict(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WriteConflict)  # the store's own word for a lost race: 409
        return render(request, errors.Conflict(exc.message))

    async def on_refused_decision(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, DecisionRefused)  # access/'s own word: 429 or 503
        return render(request, errors.refusal_of(exc))

    app.add_exception_handler(errors.ApiError, on_api_error)
    app.add_exception_handler(WriteConflict, on_write_conflict)
    app.add_exception_handler(DecisionRefused, on_refused_decision)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)


def _kernel_router(spec: ServiceSpec) -> APIRouter:
    router = APIRouter(tags=["operations"])

    @router.get(HEALTH_PATH, summary="Liveness and database reachability", openapi_extra=PUBLIC)
    async def health(request: Request) -> Response:
        state = request.app.state
        return await _health_answer(spec, state.health, state.jobs, state.access.replica)

    @router.get(
        "/metrics",
        summary="Prometheus metrics",
        response_class=Response,
        openapi_extra=requires(ServicePermissions(spec.name).read("metrics")),
    )
    def metrics(request: Request) -> Response:
        return reply(request.app.state.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    return router
