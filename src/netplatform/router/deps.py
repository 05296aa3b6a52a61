"""Typed dependencies of the message router's routes: its service objects and the caller.

They are ``async def`` although they never await: FastAPI runs a plain ``def`` dependency in
its thread pool, three thread hand-offs per publish, which cost a fifth of the router's CPU
per single-message publish (docs/performance/router.md).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .access import Caller
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
    """The authenticated identity (the kernel's Basic auth) with its NETPLATFORM_USERS roles."""
    identity: str = request.state.user
    roles: dict[str, frozenset[str]] = request.app.state.user_roles
    return Caller(identity, roles.get(identity, frozenset()))


TopicsDep = Annotated[Topics, Depends(topics)]
EventsDep = Annotated[Events, Depends(events)]
MirrorsDep = Annotated[MirrorSupervisor, Depends(mirrors)]
CallerDep = Annotated[Caller, Depends(caller)]
