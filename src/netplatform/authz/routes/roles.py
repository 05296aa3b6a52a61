"""Roles and their grants: ``/authz/role``, ``/authz/role/{name}``, ``/authz/role/perm`` and
``/authz/role/{role}/perm/{type}/{instance}/{action}``."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response

from ...access.permissions import Permission
from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import CallerDep, RolesDep
from ..errors import bad_request
from ..schemas import Grant, GrantAnswer, NewRole, Perm, Role, RoleNameAnswer
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/authz/role", tags=["roles"])

RolePath = Annotated[str, Path(description="a role")]
PartPath = Annotated[str, Path(description="a permission part, percent-encoded ('/' as %2F)")]


def permission_of(type_: str, instance: str, action: str) -> Permission:
    try:
        return Permission.of(type_, instance, action)
    except ValueError as error:
        raise bad_request(str(error), "perm") from error


@router.post(
    "",
    summary="Create a role",
    status_code=201,
    responses=answers(SPEC, Role, 403, 409, status=201),
    openapi_extra=requires(PERMISSIONS.write("role")),
)
def create_role(body: NewRole, roles: RolesDep) -> Response:
    return reply(roles.create(body.name, body.description), 201)


@router.delete(
    "/{name}",
    summary="Delete a stored role, its grants and its memberships (a built-in role: 403)",
    responses=answers(SPEC, RoleNameAnswer, 403, 404),
    openapi_extra=requires(PERMISSIONS.write("role")),
)
def delete_role(name: RolePath, roles: RolesDep, caller: CallerDep) -> Response:
    roles.delete(name, caller)
    return reply(RoleNameAnswer(name=name))


@router.post(
    "/perm",
    summary="Grant a permission to a stored role (a built-in role's are code: 403)",
    status_code=201,
    responses=answers(SPEC, GrantAnswer, 403, 404, 409, status=201),
    openapi_extra=requires(PERMISSIONS.write("perm")),
)
def grant(body: Grant, roles: RolesDep, caller: CallerDep) -> Response:
    permission = permission_of(body.perm.type, body.perm.instance, body.perm.action)
    roles.grant(body.role, permission, caller)
    return reply(GrantAnswer(role=body.role, perm=Perm.of(permission)), 201)


@router.delete(
    "/{role}/perm/{type}/{instance:any_path}/{action}",
    summary="Ungrant a permission (an instance holding '/' may send it as %2F)",
    responses=answers(SPEC, GrantAnswer, 403, 404),
    openapi_extra=requires(PERMISSIONS.write("perm")),
)
def ungrant(
    request: Request,
    role: RolePath,
    type: PartPath,
    instance: PartPath,
    action: PartPath,
    roles: RolesDep,
    caller: CallerDep,
) -> Response:
    role, permission = _grant_in_path(request, role, permission_of(type, instance, action))
    roles.ungrant(role, permission, caller)
    return reply(GrantAnswer(role=role, perm=Perm.of(permission)))


def _grant_in_path(request: Request, role: str, routed: Permission) -> tuple[str, Permission]:
    """The role and permission as the client wrote them.

    The router matches the decoded path, where an instance's ``%2F`` is a ``/`` like the
    separators; ``{instance:any_path}`` takes every middle segment, which is right unless the
    role or type held an encoded slash too. The raw path tells them apart: it is split at its
    literal slashes before each segment is decoded.
    """
    raw = request.scope.get("raw_path")
    if not isinstance(raw, bytes):
        return role, routed
    segments = raw.decode("latin-1").split("/")  # "", "authz", "role", role, "perm", type, ..., action
    if len(segments) < 8 or segments[4] != "perm":
        return role, routed
    parts = [unquote(segment) for segment in segments]
    return parts[3], permission_of(parts[5], "/".join(parts[6:-1]), parts[-1])
