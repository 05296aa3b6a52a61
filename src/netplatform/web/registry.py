"""A service's objects: one typed registry per app, built once by ``create_app``, and the route
dependencies that hand its members over.

Each service declares a frozen dataclass of its objects (``DistributionObjects`` ...) and one
:class:`Registry` of it in its ``deps.py``; ``create_app`` builds the dataclass once and
:meth:`Registry.install` puts it on the app under the kernel's one key. A route names a member
through a typed alias, the only place the member is named besides the dataclass::

    OBJECTS = Registry(DistributionObjects)
    DeliveryEngineDep = Annotated[DeliveryEngine, OBJECTS.depends(lambda o: o.delivery)]

The dependencies are ``async def`` although they never await: FastAPI runs a plain ``def``
dependency in its thread pool, a hop that costs more than the cached answers it often precedes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from fastapi import Depends
from starlette.applications import Starlette
from starlette.requests import HTTPConnection

S = TypeVar("S")
T = TypeVar("T")

_KEY = "service_objects"
"""The one attribute of ``app.state`` that holds a service's objects."""


class Registry(Generic[S]):
    """Where the objects of type ``S`` are kept on an app, and how routes reach them."""

    def __init__(self, kind: type[S]) -> None:
        self.kind = kind

    def install(self, app: Starlette, objects: S) -> S:
        """Keep ``objects`` on ``app`` (replacing any kept before, as a test swapping one may)."""
        if not isinstance(objects, self.kind):
            raise TypeError(f"{type(objects).__name__} is not {self.kind.__name__}")
        setattr(app.state, _KEY, objects)
        return objects

    def of(self, app: Starlette) -> S:
        """The objects kept on ``app`` (for lifespans and tests; routes use :meth:`depends`)."""
        objects: S = getattr(app.state, _KEY)
        return objects

    def pick(self, choose: Callable[[S], T]) -> Callable[[HTTPConnection], T]:
        """A plain function of the request giving one member (what :func:`~.replay.replayable` takes)."""

        def picked(connection: HTTPConnection) -> T:
            return choose(self.of(connection.app))

        return picked

    def depends(self, choose: Callable[[S], T]) -> Any:
        """A route dependency giving one member: the metadata of an ``Annotated`` alias.

        Its type is ``Any`` because an ``Annotated`` alias's metadata is not checked against the
        alias's type by mypy; :func:`members_of` lets a test check each alias's declared type
        against what its registry really hands over (tests/web/test_registry_aliases.py)."""

        async def member(connection: HTTPConnection) -> T:
            return choose(self.of(connection.app))

        member.chooses = (self, choose)  # type: ignore[attr-defined]
        return Depends(member)


def members_of(dependency: object) -> tuple[Registry[Any], Callable[[Any], Any]] | None:
    """The registry and chooser behind a dependency :meth:`Registry.depends` made, else None."""
    function = getattr(dependency, "dependency", None)
    chooses = getattr(function, "chooses", None)
    return chooses if isinstance(chooses, tuple) else None
