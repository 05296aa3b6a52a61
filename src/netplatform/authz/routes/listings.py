"""Listings: roles, an identity's roles and permissions, a role's members and permissions.

Not replayable: an answer changes when a membership expires and with NETPLATFORM_USERS, not
only with the stored rows.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import JSONResponse

from ...web.openapi import error_responses
from ...web.permissions import per_object, requires
from ..deps import MembershipsDep, RolesDep, SelfOr
from ..schemas import MemberList, PermList, RoleList
from ..spec import PERMISSIONS, SPEC
from ._common import reply

router = APIRouter(prefix="/authz", tags=["listings"])

UserPath = Annotated[str, Path(description="an identity")]
RolePath = Annotated[str, Path(description="a role")]
SELF_OR_READER = "the identity itself, or authz.reader"


@router.get(
    "/roles",
    summary="Every role with its permissions: the built-in ones first, then the stored ones",
    responses={200: {"model": RoleList}, **error_responses(SPEC, 403)},
    openapi_extra=requires(PERMISSIONS.read("roles")),
)
def list_roles(roles: RolesDep) -> JSONResponse:
    return reply(RoleList(role=roles.every()))


@router.get(
    "/roles/user/{user}",
    summary="The roles an identity holds now (configured and stored, unexpired)",
    responses={200: {"model": RoleList}, **error_responses(SPEC, 403, 404)},
    openapi_extra=per_object(SELF_OR_READER),
    dependencies=[Depends(SelfOr(PERMISSIONS.read("roles")))],
)
def roles_of_user(user: UserPath, memberships: MembershipsDep) -> JSONResponse:
    return reply(RoleList(role=memberships.roles_of(user)))


@router.get(
    "/users/role/{role}",
    summary="The members of a role (configured ones, then stored ones with their expiry)",
    responses={200: {"model": MemberList}, **error_responses(SPEC, 403, 404)},
    openapi_extra=requires(PERMISSIONS.read("users")),
)
def members_of_role(role: RolePath, memberships: MembershipsDep) -> JSONResponse:
    return reply(MemberList(user=memberships.members_of(role)))


@router.get(
    "/perms/user/{user}",
    summary="The union of the permissions of the roles an identity holds now",
    responses={200: {"model": PermList}, **error_responses(SPEC, 403, 404)},
    openapi_extra=per_object(SELF_OR_READER),
    dependencies=[Depends(SelfOr(PERMISSIONS.read("perms")))],
)
def permissions_of_user(user: UserPath, memberships: MembershipsDep) -> JSONResponse:
    return reply(PermList(perm=memberships.permissions_of(user)))


@router.get(
    "/perms/role/{role}",
    summary="A role's permissions (a built-in role's from code)",
    responses={200: {"model": PermList}, **error_responses(SPEC, 403, 404)},
    openapi_extra=requires(PERMISSIONS.read("perms")),
)
def permissions_of_role(role: RolePath, roles: RolesDep) -> JSONResponse:
    return reply(PermList(perm=roles.permissions_of(role)))
