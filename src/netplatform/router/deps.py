"""Typed dependencies of the message router's routes: its service objects and the caller.

They are ``async def`` although they never await: FastAPI runs a plain ``def`` dependency in
its thread pool, three thread hand-offs per publish, which cost a fifth of the router's CPU
per single-message publish (docs/performance/router.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from fastapi import Depends, Request

from ..access.directory import AccessDirectory
from .access import Caller
from .app import PERMISSIONS
from .events import Events
from .mirror_supervisor import MirrorSupervisor
from .topics import Topics


async def topics(request: Request) -> Topics:
    service: Topics = request.app.state.topics
    return service


async def events(request: Request) -> Events:
    service: Events = request.app.state.events
    return service


async def mirrors(request: Request) -> MirrorSupervisor:
    service: MirrorSupervisor = request.app.state.mirrors
    return service


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


TopicsDep = Annotated[Topics, Depends(topics)]
EventsDep = Annotated[Events, Depends(events)]
MirrorsDep = Annotated[MirrorSupervisor, Depends(mirrors)]
CallerDep = Annotated[Caller, Depends(caller)]
GranterDep = Annotated[Caller, Depends(granter)]
