"""Typed dependencies of the message router's routes: its service objects and the caller."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .access import Caller
from .events import Events
from .topics import Topics


def topics(request: Request) -> Topics:
    service: Topics = request.app.state.topics
    return service


def events(request: Request) -> Events:
    service: Events = request.app.state.events
    return service


def caller(request: Request) -> Caller:
    """The authenticated identity (the kernel's Basic auth) with its NETPLATFORM_USERS roles."""
    identity: str = request.state.user
    roles: dict[str, frozenset[str]] = request.app.state.user_roles
    return Caller(identity, roles.get(identity, frozenset()))


TopicsDep = Annotated[Topics, Depends(topics)]
EventsDep = Annotated[Events, Depends(events)]
CallerDep = Annotated[Caller, Depends(caller)]
