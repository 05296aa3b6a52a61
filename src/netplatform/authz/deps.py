"""The authz service's objects (:mod:`netplatform.web.registry`), the typed dependencies of its
routes, and the "the identity itself, or a reader" rule of the per-identity listings.

:class:`SelfOr` is ``async``: it awaits the process's decision cache (FastAPI runs a plain
``def`` dependency in its thread pool, a hop for nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from ..access.directory import AccessDirectory
from ..access.permissions import Permission
from ..web.registry import Registry
from .directory_feed import DirectoryFeed
from .errors import lacks_permission
from .identities import Identities
from .memberships import Memberships
from .roles import Roles


@dataclass(frozen=True)
class AuthzObjects:
    """The authz service's objects, built once by ``create_app``."""

    identities: Identities
    roles: Roles
    memberships: Memberships
    directory_feed: DirectoryFeed


OBJECTS = Registry(AuthzObjects)

IdentitiesDep = Annotated[Identities, OBJECTS.depends(Identities, lambda o: o.identities)]
RolesDep = Annotated[Roles, OBJECTS.depends(Roles, lambda o: o.roles)]
MembershipsDep = Annotated[Memberships, OBJECTS.depends(Memberships, lambda o: o.memberships)]
DirectoryFeedDep = Annotated[DirectoryFeed, OBJECTS.depends(DirectoryFeed, lambda o: o.directory_feed)]


async def caller(request: Request) -> str:
    """The authenticated identity of the request (the kernel has checked its credentials)."""
    user: str = request.state.user
    return user


CallerDep = Annotated[str, Depends(caller)]


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
