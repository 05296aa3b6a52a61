"""Typed dependencies of the authz routes: its service objects, and the "the identity itself, or a
reader" rule of the per-identity listings.

They are ``async def``: they only read ``app.state`` or await the process's decision cache
(FastAPI runs a plain ``def`` dependency in its thread pool, a hop for nothing).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ..access.directory import AccessDirectory
from ..web.permissions import Permission
from .errors import lacks_permission
from .identities import Identities
from .memberships import Memberships
from .roles import Roles


async def identities(request: Request) -> Identities:
    service: Identities = request.app.state.identities
    return service


async def roles(request: Request) -> Roles:
    service: Roles = request.app.state.roles
    return service


async def memberships(request: Request) -> Memberships:
    service: Memberships = request.app.state.memberships
    return service


IdentitiesDep = Annotated[Identities, Depends(identities)]
RolesDep = Annotated[Roles, Depends(roles)]
MembershipsDep = Annotated[Memberships, Depends(memberships)]


class SelfOr:
    """A dependency admitting the identity named by the path's ``user`` itself, or a caller
    holding ``permission``; anyone else gets 403 naming the permission (the kernel's wording).

    Checked before the handler looks the identity up, so a refusal says nothing of whether it exists.
    """

    def __init__(self, permission: Permission) -> None:
        self.permission = permission

    async def __call__(self, request: Request, user: str) -> None:
        caller: str = request.state.user
        if caller == user:
            return
        access: AccessDirectory = request.app.state.access
        if not await access.allows(caller, self.permission):
            raise lacks_permission(caller, self.permission)
