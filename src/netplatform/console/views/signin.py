"""Sign-in and sign-out.

Credentials are checked by the services themselves (a Basic-authenticated GET /metrics), so
the console accepts exactly the users of the deployment it points at, wherever that is.
The sign-in form has no session yet; its CSRF token is a double-submit cookie instead.
"""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from ..sessions import SESSION_COOKIE, SESSION_TTL_S, SIGNIN_COOKIE, Session, tokens_match
from ..web import (
    CsrfRejected,
    apis,
    checked_form,
    codec,
    current_session,
    field,
    no_store,
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
    if codec(request).open(request.cookies.get(SESSION_COOKIE)) is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return _signin_page(request, safe_next(next))


@router.post("/signin")
async def signin(request: Request) -> Response:
    form = await request.form()
    if not tokens_match(request.cookies.get(SIGNIN_COOKIE), field(form, "csrf")):
        raise CsrfRejected()
    user, password, next_path = field(form, "user"), field(form, "password"), safe_next(field(form, "next"))
    verdict = await apis(request).check_credentials(user, password) if user and password else False
    if verdict is None:
        error = "No service answered, so the credentials could not be checked. Try again later."
        return _signin_page(request, next_path, error, user, 503)
    if not verdict:
        return _signin_page(request, next_path, "Wrong user name or password.", user, 401)
    _, cookie = codec(request).new(user, password)
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


@router.post("/signout")
async def signout(request: Request, session: Session = Depends(current_session)) -> Response:
    await checked_form(request, session)
    codec(request).revoke(session)
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax", secure=secure_cookies(request))
    return response
