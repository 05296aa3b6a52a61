"""Identities and their credentials: ``/authn/cred`` and ``/authn/validate``.

Passwords are taken from request bodies only, hashed (argon2id) before they are stored, and
never echoed: no answer and no error message carries one.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.auth import client_address
from ...web.errors import Forbidden
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import CallerDep, IdentitiesDep
from ..schemas import ChangedCredential, IdentityAnswer, IdentityList, NewCredential, Validation
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/authn", tags=["credentials"])

IdentityPath = Annotated[str, Path(description="an identity")]
WRITE = requires(PERMISSIONS.write("cred"))


@router.get(
    "/cred",
    summary="Every identity: the configured ones (NETPLATFORM_USERS), then the stored ones",
    responses=answers(SPEC, IdentityList, 403),
    openapi_extra=requires(PERMISSIONS.read("cred")),
)
def list_identities(identities: IdentitiesDep) -> Response:
    return reply(IdentityList(user=identities.every()))


@router.post(
    "/cred",
    summary="Create an identity with its password (stored as an argon2id hash only)",
    status_code=201,
    responses=answers(SPEC, IdentityAnswer, 403, 409, status=201),
    openapi_extra=WRITE,
)
def create_identity(body: NewCredential, identities: IdentitiesDep) -> Response:
    identities.create(body.id, body.password)
    return reply(IdentityAnswer(id=body.id), 201)


@router.put(
    "/cred/{id}",
    summary="Change a stored identity's password (a configured identity's: 403)",
    responses=answers(SPEC, IdentityAnswer, 403, 404),
    openapi_extra=WRITE,
)
def change_password(
    id: IdentityPath, body: ChangedCredential, identities: IdentitiesDep, caller: CallerDep
) -> Response:
    identities.change_password(id, body.password, body.id, caller)
    return reply(IdentityAnswer(id=id))


@router.delete(
    "/cred/{id}",
    summary="Delete a stored identity and its memberships (a configured identity: 403)",
    responses=answers(SPEC, IdentityAnswer, 403, 404),
    openapi_extra=WRITE,
)
def delete_identity(id: IdentityPath, identities: IdentitiesDep, caller: CallerDep) -> Response:
    identities.delete(id, caller)
    return reply(IdentityAnswer(id=id))


@router.post(
    "/validate",
    summary="Whether an identity's password is valid (200), or not (403): for other systems",
    responses=answers(SPEC, IdentityAnswer, 403),
    openapi_extra=requires(PERMISSIONS.read("validate")),
)
async def validate(request: Request, body: Validation, identities: IdentitiesDep) -> Response:
    # The check runs on the kernel's bounded pool of check threads, throttled as a sign-in is.
    if not await identities.validate(body.id, body.password, client_address(request.scope)):
        raise Forbidden("Invalid identity or password", fields="Authentication")
    return reply(IdentityAnswer(id=body.id))
