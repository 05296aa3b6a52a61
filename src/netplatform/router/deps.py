"""The message router's objects (:mod:`netplatform.web.registry`) and the typed dependencies of
its routes: the objects and the caller.

They are ``async def`` although they never await: FastAPI runs a plain ``def`` dependency in
its thread pool, three thread hand-offs per publish, which cost a fifth of the router's CPU
per single-message publish (docs/performance/router.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated

from fastapi import Depends, Query, Request

from ..access.directory import AccessDirectory
from ..web.registry import Registry
from .access import Caller
from .engines.base import Engine
from .events import Events
from .mirror_supervisor import MirrorSupervisor
from .schemas import Identity
from .spec import PERMISSIONS
from .topics import Topics


@dataclass(frozen=True)
class RouterObjects:
    """The message router's objects, built once by ``create_app``."""

    engine: Engine
    topics: Topics
    events: Events
    mirrors: MirrorSupervisor


OBJECTS = Registry(RouterObjects)


async def caller(request: Request) -> Caller:
    """The authenticated identity (the kernel's Basic auth) with every role the authorization
    store gives it (cached by the access directory, never more than 2 s behind a change)."""
    identity: str = request.state.user
    access: AccessDirectory = request.app.state.access
    return Caller(identity, await access.roles(identity))


async def granter(request: Request) -> Caller:
    """The caller, knowing whether it holds router.writer's write on topics (which lets it grant
    and revoke on any topic): looked up only by the routes that need it."""
    found = await caller(request)
    access: AccessDirectory = request.app.state.access
    return replace(found, topic_writer=await access.allows(found.identity, PERMISSIONS.write("topics")))


@dataclass(frozen=True)
class Subject:
    """The identity an access question names, and as what it would call (None: unknown here)."""

    identity: str
    caller: Caller | None


async def subject(
    request: Request,
    identity: Annotated[Identity, Query(description="the identity whose access is asked about")],
) -> Subject:
    """The named identity with every role it holds here, found as :func:`caller` finds a
    caller's (the same directory; at a site, its replica of central's)."""
    access: AccessDirectory = request.app.state.access
    if not await access.knows(identity):
        return Subject(identity, None)
    return Subject(identity, Caller(identity, await access.roles(identity)))


TopicsDep = Annotated[Topics, OBJECTS.depends(Topics, lambda o: o.topics)]
EventsDep = Annotated[Events, OBJECTS.depends(Events, lambda o: o.events)]
MirrorsDep = Annotated[MirrorSupervisor, OBJECTS.depends(MirrorSupervisor, lambda o: o.mirrors)]
CallerDep = Annotated[Caller, Depends(caller)]
GranterDep = Annotated[Caller, Depends(granter)]
SubjectDep = Annotated[Subject, Depends(subject)]
