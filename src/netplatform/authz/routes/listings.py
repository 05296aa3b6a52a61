"""Listings: roles, an identity's roles and permissions, a role's members and permissions.

Not replayable: an answer changes when a membership expires and with NETPLATFORM_USERS, not
only with the stored rows.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import per_object, requires
from ..deps import MembershipsDep, RolesDep, SelfOr
from ..schemas import MemberList, PermList, RoleList
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/authz", tags=["listings"])

UserPath = Annotated[str, Path(description="an identity")]
RolePath = Annotated[str, Path(description="a role")]
SELF_OR_READER = "the identity itself, or authz.reader"


@router.get(
    "/roles",
    summary="Every role with its permissions: the built-in ones first, then the stored ones",
    responses=answers(SPEC, RoleList, 403),
    openapi_extra=requires(PERMISSIONS.read("roles")),
)
def list_roles(roles: RolesDep) -> Response:
    return reply(RoleList(role=roles.every()))


@router.get(
    "/roles/user/{user}",
    summary="The roles an identity holds now (configured and stored, unexpired)",
    responses=answers(SPEC, RoleList, 403, 404),
    openapi_extra=per_object(SELF_OR_READER),
    dependencies=[Depends(SelfOr(PERMISSIONS.read("roles")))],
)
def roles_of_user(user: UserPath, memberships: MembershipsDep) -> Response:
    return reply(RoleList(role=memberships.roles_of(user)))


@router.get(
    "/users/role/{role}",
    summary="The members of a role (configured ones, then stored ones with their expiry)",
    responses=answers(SPEC, MemberList, 403, 404),
    openapi_extra=requires(PERMISSIONS.read("users")),
)
def members_of_role(role: RolePath, memberships: MembershipsDep) -> Response:
    return reply(MemberList(user=memberships.members_of(role)))


@router.get(
    "/perms/user/{user}",
    summary="The union of the permissions of the roles an identity holds now",
    responses=answers(SPEC, PermList, 403, 404),
    openapi_extra=per_object(SELF_OR_READER),
    dependencies=[Depends(SelfOr(PERMISSIONS.read("perms")))],
)
def permissions_of_user(user: UserPath, memberships: MembershipsDep) -> Response:
    return reply(PermList(perm=memberships.permissions_of(user)))


@router.get(
    "/perms/role/{role}",
    summary="A role's permissions (a built-in role's from code)",
    responses=answers(SPEC, PermList, 403, 404),
    openapi_extra=requires(PERMISSIONS.read("perms")),
)
def permissions_of_role(role: RolePath, roles: RolesDep) -> Response:
    return reply(PermList(perm=roles.permissions_of(role)))
