"""Access, for administrators: the authz service's identities, roles and their members; create an
identity, add or remove a membership (docs/console.md, "Access").

Everything goes through the authz service's REST API with the signed-in user's credentials, so
the service decides each call; the page offers its forms only to those whose roles hold the
writes (``platform.authz.api|cred|write``, ``platform.authz.api|userRole|write``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from ..apis import ApiError, refusal_status
from ..sessions import Session
from ..web import apis, checked_form, current_session, render
from ..web import field as form_field
from .distribution import time_param

router = APIRouter()
PAGE = "/admin/access"
NOTICES = {
    "identity": "Identity {user} created.",
    "added": "{user} is now a member of {role}.",
    "removed": "{user} is no longer a member of {role}.",
}


@dataclass
class RoleRow:
    name: str
    description: str
    builtin: bool
    perms: list[str]
    members: list[dict[str, Any]] = field(default_factory=list)
    error: ApiError | None = None


async def _authz(
    request: Request, session: Session, method: str, path: str, body: Any = None
) -> dict[str, Any] | ApiError:
    """The authz service's JSON object answering a 2xx, else its refusal."""
    response = await apis(request).call("authz", method, path, session.credentials, json=body)
    if not 200 <= response.status_code < 300:
        return ApiError.of(response)
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        return ApiError(502, f"The authz service's answer to {method} {path} is no JSON object.", [])
    return answer


def _perm_text(perm: Any) -> str:
    if isinstance(perm, dict):
        return f"{perm.get('type')}|{perm.get('instance')}|{perm.get('action')}"
    return str(perm)


async def _roles(request: Request, session: Session, listed: list[Any]) -> list[RoleRow]:
    rows = [
        RoleRow(
            str(role.get("name", "")),
            str(role.get("description") or ""),
            bool(role.get("builtin")),
            [_perm_text(perm) for perm in role.get("perms") or []],
        )
        for role in listed
        if isinstance(role, dict)
    ]
    members = await asyncio.gather(
        *(_authz(request, session, "GET", "/authz/users/role/" + quote(row.name, safe="")) for row in rows)
    )
    for row, answer in zip(rows, members, strict=True):
        if isinstance(answer, ApiError):
            row.error = answer
        else:
            row.members = [m for m in answer.get("user") or [] if isinstance(m, dict)]
    return rows


def _roles_of(rows: list[RoleRow]) -> dict[str, list[str]]:
    """Each identity's roles, from the roles' member lists."""
    found: dict[str, list[str]] = {}
    for row in rows:
        for member in row.members:
            found.setdefault(str(member.get("id")), []).append(row.name)
    return found


def _notice(request: Request) -> str:
    template = NOTICES.get(request.query_params.get("done", ""))
    if template is None:
        return ""
    return template.format(
        user=request.query_params.get("user", ""), role=request.query_params.get("role", "")
    )


async def _page(
    request: Request,
    session: Session,
    error: ApiError | None = None,
    typed: dict[str, str] | None = None,
) -> Response:
    """The page, read afresh; ``error`` (a refused form) is shown above it with its status."""
    identities, roles = await asyncio.gather(
        _authz(request, session, "GET", "/authn/cred"), _authz(request, session, "GET", "/authz/roles")
    )
    if isinstance(identities, ApiError):
        return _refused(request, identities)
    if isinstance(roles, ApiError):
        return _refused(request, roles)
    rows = await _roles(request, session, roles.get("role") or [])
    context = {
        "title": "Access",
        "identities": [i for i in identities.get("user") or [] if isinstance(i, dict)],
        "roles": rows,
        "roles_of": _roles_of(rows),
        "notice": _notice(request),
        "error": error,
        "typed": typed or {},
    }
    return render(request, "admin/access.html", context, refusal_status(error.status) if error else 200)


def _refused(request: Request, error: ApiError) -> Response:
    """A listing refused (a user without authz reads who came by the URL): the service's answer."""
    return render(
        request, "api_error.html", {"title": "Access", "error": error}, refusal_status(error.status)
    )


@router.get(PAGE)
async def access_page(request: Request, session: Session = Depends(current_session)) -> Response:
    return await _page(request, session)


def _done(what: str, **names: str) -> Response:
    return RedirectResponse(f"{PAGE}?{urlencode({'done': what, **names})}", status_code=303)


@router.post(PAGE + "/identities")
async def create_identity(request: Request, session: Session = Depends(current_session)) -> Response:
    form = await checked_form(request, session)
    user, password = form_field(form, "id").strip(), form_field(form, "password")
    answer = await _authz(request, session, "POST", "/authn/cred", {"id": user, "password": password})
    if isinstance(answer, ApiError):
        return await _page(request, session, answer, {"id": user})
    return _done("identity", user=user)


@router.post(PAGE + "/memberships")
async def add_membership(request: Request, session: Session = Depends(current_session)) -> Response:
    form = await checked_form(request, session)
    user, role = form_field(form, "user").strip(), form_field(form, "role").strip()
    body: dict[str, Any] = {"user": user, "role": role}
    expires = form_field(form, "expires").strip()
    if expires:  # a datetime-local value, read as UTC (the form says so); none: never ends
        body["expires"] = time_param(expires)
    answer = await _authz(request, session, "POST", "/authz/userRole", body)
    if isinstance(answer, ApiError):
        return await _page(request, session, answer, {"user": user, "role": role})
    return _done("added", user=user, role=role)


@router.post(PAGE + "/memberships/remove")
async def remove_membership(request: Request, session: Session = Depends(current_session)) -> Response:
    form = await checked_form(request, session)
    user, role = form_field(form, "user"), form_field(form, "role")
    path = f"/authz/userRole/{quote(user, safe='')}/{quote(role, safe='')}"
    answer = await _authz(request, session, "DELETE", path)
    if isinstance(answer, ApiError):
        return await _page(request, session, answer)
    return _done("removed", user=user, role=role)
