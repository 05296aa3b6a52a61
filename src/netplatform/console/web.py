"""What every page shares: templates, the session dependency (with the user's grants), the CSRF
check on forms."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import FormData
from starlette.templating import Jinja2Templates

from ..access.throttle import Throttle
from ..clock import now_ms
from ..settings import Settings
from ..web.registry import Registry
from .apis import Apis, CredentialsRefused, TooManyAttempts
from .configmodel import ConfigModel
from .grants import NO_GRANTS, Grants, GrantsCache
from .metrics import RateTracker
from .sessions import SESSION_COOKIE, SESSION_TTL_S, Session, SessionCodec, tokens_match
from .signouts import SignOuts

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(HERE / "templates"))
templates.env.autoescape = True


class NeedSession(Exception):
    """No valid session: the handler answers with a redirect to the sign-in page."""

    def __init__(self, next_path: str) -> None:
        super().__init__(next_path)
        self.next_path = next_path


class CsrfRejected(Exception):
    """A form arrived without the token of the session (or of the sign-in page): 403."""


@dataclass(frozen=True)
class ConsoleObjects:
    """The console's objects, built once by ``create_app`` (:mod:`netplatform.web.registry`):
    the API clients, the session codec, each session's permissions (read again every few
    seconds), the previous /metrics sample per service (overview rates) and the config tree's
    model per service URL (views/configtree.py), the throttle of failed sign-ins, and the
    sign-outs (in the database: they hold on every instance)."""

    settings: Settings
    apis: Apis
    codec: SessionCodec
    grants: GrantsCache
    rates: RateTracker
    config_models: dict[str, ConfigModel]
    throttle: Throttle
    signouts: SignOuts


OBJECTS = Registry(ConsoleObjects)


def objects(request: Request) -> ConsoleObjects:
    return OBJECTS.of(request.app)


def codec(request: Request) -> SessionCodec:
    return OBJECTS.of(request.app).codec


def apis(request: Request) -> Apis:
    return OBJECTS.of(request.app).apis


def grants_cache(request: Request) -> GrantsCache:
    return OBJECTS.of(request.app).grants


def config_models(request: Request) -> dict[str, ConfigModel]:
    """The config tree's model per service URL, read once (views/configtree.py)."""
    return OBJECTS.of(request.app).config_models


def grants(request: Request) -> Grants:
    """The signed-in user's grants (set by :func:`current_session`); none before sign-in."""
    result: Grants = getattr(request.state, "grants", NO_GRANTS)
    return result


def rate_tracker(request: Request) -> RateTracker:
    return OBJECTS.of(request.app).rates


async def open_session(request: Request) -> Session | None:
    """The session of the request's cookie, unless it is absent, not ours, expired or signed out."""
    session = codec(request).open(request.cookies.get(SESSION_COOKIE))
    if session is None or await objects(request).signouts.ended(session.sid):
        return None
    return session


async def end_session(request: Request, session: Session) -> None:
    """Sign the session out everywhere, until it would have expired anyway."""
    await objects(request).signouts.end(session.sid, now_ms() + SESSION_TTL_S * 1000)
    grants_cache(request).forget(session.sid)


async def current_session(request: Request) -> Session:
    """The signed-in session, or NeedSession (every page but sign-in depends on this), with the
    user's grants in ``request.state.grants``."""
    path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    session = await open_session(request)
    if session is None:
        raise NeedSession(path)
    request.state.grants = await session_grants(request, session, path)
    request.state.session = session
    return session


async def session_grants(request: Request, session: Session, path: str) -> Grants:
    """The session's grants, read again from the authz service once the cached ones are older than
    a few seconds. A 401 there means the identity is gone or its password changed: the session
    ends. When the authz service cannot say, no action is offered until it can."""
    cache = grants_cache(request)
    found = cache.get(session.sid)
    if found is not None:
        return found
    try:
        permissions = await apis(request).permissions_of(session.user, session.password)
    except CredentialsRefused:
        await end_session(request, session)
        raise NeedSession(path) from None
    except TooManyAttempts:
        permissions = None  # no answer either way: no action is offered until there is one
    found = Grants(known=False) if permissions is None else Grants(permissions)
    cache.put(session.sid, found)
    return found


async def checked_form(request: Request, session: Session) -> FormData:
    """The posted form once its CSRF token matches the session's."""
    form = await request.form()
    given = form.get("csrf")
    if not tokens_match(session.csrf, given if isinstance(given, str) else None):
        raise CsrfRejected()
    return form


def field(form: FormData, name: str) -> str:
    value = form.get(name)
    return value if isinstance(value, str) else ""


def render(request: Request, template: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    session: Session | None = getattr(request.state, "session", None)
    allowed = grants(request)
    base = {
        "session": session,
        "csrf": session.csrf if session else "",
        "path": request.url.path,
        "grants": allowed,
        "can": allowed.can,
    }
    return templates.TemplateResponse(request, template, {**base, **context}, status_code=status)


def signin_url(next_path: str) -> str:
    return "/signin?next=" + quote(next_path, safe="/")


def safe_next(value: str | None) -> str:
    """Only a path on this console may follow sign-in (no open redirect to another site)."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


def secure_cookies(request: Request) -> bool:
    return request.url.scheme == "https" or bool(OBJECTS.of(request.app).settings.tls_cert)


def no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response
