"""``create_app``: the console's ASGI app.

Not the kernel's build_app: that one opens the database and puts HTTP Basic on every route,
while the console has no database and authenticates people with a session cookie, then calls
the APIs with their credentials (docs/console.md, "Decisions").
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from ..access.throttle import throttle_for
from ..settings import Settings
from ..store.db import database_for
from .apis import Apis, Unreachable
from .grants import GrantsCache
from .metrics import RateTracker
from .sessions import SessionCodec
from .signouts import SignOuts
from .views import (
    access,
    blueprints,
    bus,
    configtree,
    devices,
    distribution,
    executions,
    overview,
    policy,
    policy_create,
    router,
    signin,
)
from .web import HERE, OBJECTS, ConsoleObjects, CsrfRejected, NeedSession, render, signin_url

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The API clients closed when the console stops."""
    yield
    await OBJECTS.of(app).apis.close()


def create_app(settings: Settings) -> FastAPI:
    app = FastAPI(
        title="netplatform console", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None
    )
    objects = ConsoleObjects(
        settings=settings,
        apis=Apis(settings),
        codec=SessionCodec(settings.console_secret),
        grants=GrantsCache(),
        rates=RateTracker(),
        config_models={},
        throttle=throttle_for(settings),
        signouts=SignOuts(database_for(settings)),
    )
    OBJECTS.install(app, objects)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    for module in (
        signin,
        overview,
        policy,
        policy_create,
        configtree,
        blueprints,
        devices,
        executions,
        bus,
        router,
        distribution,
        access,
    ):
        app.include_router(module.router)
    app.add_api_route("/health", _health, methods=["GET"])
    _install_handlers(app)
    app.middleware("http")(_security_headers)
    return app


async def _health() -> JSONResponse:
    return JSONResponse({"service": "console", "status": "UP"})


async def _security_headers(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    response = await call_next(request)
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if not request.url.path.startswith("/static/"):
        # Pages hold what a signed-in user may see: no shared or back-button cache keeps them.
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def _install_handlers(app: FastAPI) -> None:
    async def need_session(request: Request, error: Exception) -> Response:
        assert isinstance(error, NeedSession)
        return RedirectResponse(signin_url(error.next_path), status_code=303)

    async def csrf_rejected(request: Request, error: Exception) -> Response:
        context = {"title": "Form rejected", "message": "The form's security token is missing or stale."}
        return render(request, "message.html", {**context, "hint": "Reload the page and send it again."}, 403)

    async def unreachable(request: Request, error: Exception) -> Response:
        assert isinstance(error, Unreachable)
        context = {
            "title": "Service unreachable",
            "message": str(error),
            "hint": "Check that the service runs.",
        }
        return render(request, "message.html", context, 502)

    app.add_exception_handler(NeedSession, need_session)
    app.add_exception_handler(CsrfRejected, csrf_rejected)
    app.add_exception_handler(Unreachable, unreachable)
