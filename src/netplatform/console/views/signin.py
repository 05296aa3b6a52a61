"""Sign-in and sign-out.

Credentials are checked by the authz service the deployment's services authenticate against:
``GET /authz/perms/user/{user}`` with the user's own credentials (401: refused) also says what
the identity may do, so the pages offer only that. The console thus accepts exactly the
identities of the deployment it points at, wherever that is, roles or none.
The sign-in form has no session yet; its CSRF token is a double-submit cookie instead.

Failed sign-ins are throttled as the APIs throttle failed Basic credentials (the same
:class:`~netplatform.access.throttle.Throttle` and settings), by the browser's address here before
the authz service is asked, and by the authz service itself (which sees the browser's address
when it trusts the console as a proxy): 429 with Retry-After either way.
"""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from ...web.auth import client_address
from ..apis import CredentialsRefused, TooManyAttempts
from ..grants import Grants
from ..sessions import SESSION_COOKIE, SESSION_TTL_S, SIGNIN_COOKIE, Session, tokens_match
from ..web import (
    CsrfRejected,
    apis,
    checked_form,
    codec,
    current_session,
    end_session,
    field,
    grants_cache,
    no_store,
    objects,
    open_session,
    render,
    safe_next,
    secure_cookies,
)

router = APIRouter()


def _signin_page(
    request: Request, next_path: str, error: str = "", user: str = "", status: int = 200
) -> Response:
    token = secrets.token_urlsafe(32)
    response = render(
        request,
        "signin.html",
        {"title": "Sign in", "signin_token": token, "next": next_path, "error": error, "user": user},
        status,
    )
    response.set_cookie(
        SIGNIN_COOKIE, token, max_age=3600, httponly=True, samesite="strict", secure=secure_cookies(request)
    )
    return no_store(response)


@router.get("/signin")
async def signin_form(request: Request, next: str = "/") -> Response:
    if await open_session(request) is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return _signin_page(request, safe_next(next))


@router.post("/signin")
async def signin(request: Request) -> Response:
    form = await request.form()
    if not tokens_match(request.cookies.get(SIGNIN_COOKIE), field(form, "csrf")):
        raise CsrfRejected()
    user, password, next_path = field(form, "user"), field(form, "password"), safe_next(field(form, "next"))
    wrong = "Wrong user name or password."
    if not user or not password:
        return _signin_page(request, next_path, wrong, user, 401)
    throttle, address = objects(request).throttle, client_address(request.scope)
    wait = throttle.retry_after(user, address)
    if wait is not None:
        return _throttled(request, next_path, user, wait)
    try:
        permissions = await apis(request).permissions_of(user, password, address)
    except CredentialsRefused:
        throttle.failed(user, address)
        return _signin_page(request, next_path, wrong, user, 401)
    except TooManyAttempts as refusal:
        return _throttled(request, next_path, user, refusal.retry_after)
    if permissions is None:
        error = "The authz service could not check the credentials (no answer, or an error). Try again later."
        return _signin_page(request, next_path, error, user, 503)
    throttle.succeeded(user, address)
    session, cookie = codec(request).new(user, password)
    grants_cache(request).put(session.sid, Grants(permissions))
    response = RedirectResponse(next_path, status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        cookie,
        max_age=SESSION_TTL_S,
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request),
    )
    response.delete_cookie(SIGNIN_COOKIE)
    return response


def _throttled(request: Request, next_path: str, user: str, wait: int) -> Response:
    error = f"Too many failed sign-ins. Try again in {wait} seconds."
    response = _signin_page(request, next_path, error, user, 429)
    response.headers["Retry-After"] = str(wait)
    return response


@router.post("/signout")
async def signout(request: Request, session: Session = Depends(current_session)) -> Response:
    await checked_form(request, session)
    await end_session(request, session)
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax", secure=secure_cookies(request))
    return response
