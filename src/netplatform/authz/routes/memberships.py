"""Memberships: ``/authz/userRole`` and ``/authz/userRole/{user}/{role}``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import CallerDep, MembershipsDep
from ..schemas import MembershipAnswer, MembershipKey, NewMembership
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/authz/userRole", tags=["memberships"])

WRITE = requires(PERMISSIONS.write("userRole"))


@router.post(
    "",
    summary="Make an identity (configured or stored) a member of a role, optionally until a time",
    status_code=201,
    responses=answers(SPEC, MembershipAnswer, 403, 404, 409, status=201),
    openapi_extra=WRITE,
)
def add_membership(body: NewMembership, memberships: MembershipsDep, caller: CallerDep) -> Response:
    return reply(memberships.add(body.user, body.role, body.expires, caller), 201)


@router.delete(
    "/{user}/{role}",
    summary="Remove a stored membership (one from NETPLATFORM_USERS: 403)",
    responses=answers(SPEC, MembershipKey, 403, 404),
    openapi_extra=WRITE,
)
def remove_membership(
    user: Annotated[str, Path(description="an identity")],
    role: Annotated[str, Path(description="a role")],
    memberships: MembershipsDep,
    caller: CallerDep,
) -> Response:
    memberships.remove(user, role, caller)
    return reply(MembershipKey(user=user, role=role))
