"""Memberships: ``/authz/userRole`` and ``/authz/userRole/{user}/{role}``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse

from ...web.openapi import error_responses
from ...web.permissions import requires
from ..deps import MembershipsDep
from ..schemas import MembershipAnswer, MembershipKey, NewMembership
from ..spec import PERMISSIONS, SPEC
from ._common import reply

router = APIRouter(prefix="/authz/userRole", tags=["memberships"])

WRITE = requires(PERMISSIONS.write("userRole"))


@router.post(
    "",
    summary="Make an identity (configured or stored) a member of a role, optionally until a time",
    status_code=201,
    responses={201: {"model": MembershipAnswer}, **error_responses(SPEC, 403, 404, 409)},
    openapi_extra=WRITE,
)
def add_membership(body: NewMembership, memberships: MembershipsDep) -> JSONResponse:
    return reply(memberships.add(body.user, body.role, body.expires), 201)


@router.delete(
    "/{user}/{role}",
    summary="Remove a stored membership (one from NETPLATFORM_USERS: 403)",
    responses={200: {"model": MembershipKey}, **error_responses(SPEC, 403, 404)},
    openapi_extra=WRITE,
)
def remove_membership(
    user: Annotated[str, Path(description="an identity")],
    role: Annotated[str, Path(description="a role")],
    memberships: MembershipsDep,
) -> JSONResponse:
    memberships.remove(user, role)
    return reply(MembershipKey(user=user, role=role))
