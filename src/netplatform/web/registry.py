"""A service's objects: one typed registry per app, built once by ``create_app``, and the route
dependencies that hand its members over.

Each service declares a frozen dataclass of its objects (``DistributionObjects`` ...) and one
:class:`Registry` of it in its ``deps.py``; ``create_app`` builds the dataclass once and
:meth:`Registry.install` puts it on the app under the kernel's one key. A route names a member
through a typed alias, the only place the member is named besides the dataclass::

    OBJECTS = Registry(DistributionObjects)
    DeliveryEngineDep = Annotated[DeliveryEngine, OBJECTS.depends(DeliveryEngine, lambda o: o.delivery)]

The alias names its type twice: once for FastAPI and mypy (``Annotated``'s first argument), once
for :meth:`Registry.depends`, which records it with the member. No type checker looks into an
``Annotated`` alias's metadata (mypy checks neither the lambda nor the type there), so
tests/web/test_registry_aliases.py checks each alias: it declares the type ``depends`` was given,
and the member the lambda picks (a field of the objects dataclass, by its annotation) is one.

The dependencies are ``async def`` although they never await: FastAPI runs a plain ``def``
dependency in its thread pool, a hop that costs more than the cached answers it often precedes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from fastapi import params
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

    def depends(self, kind: type[T], choose: Callable[[S], T]) -> Member[T]:
        """A route dependency giving the member ``choose`` picks, a ``kind``: the metadata of an
        ``Annotated[kind, ...]`` alias. Typed (``Member[T]``, not ``Any``): where mypy sees the
        call outside an alias it checks the member against ``kind``."""
        return Member(self, kind, choose)


class Member(params.Depends, Generic[T]):
    """A route dependency (FastAPI's ``Depends``) handing over a ``kind`` of ``registry``."""

    def __init__(self, registry: Registry[Any], kind: type[T], choose: Callable[[Any], T]) -> None:
        async def member(connection: HTTPConnection) -> T:
            return choose(registry.of(connection.app))

        super().__init__(dependency=member, use_cache=True)
        # Depends is a frozen dataclass; these are the member's own, beside its fields.
        object.__setattr__(self, "registry", registry)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "choose", choose)

    registry: Registry[Any]
    kind: type[T]
    choose: Callable[[Any], T]


def members_of(dependency: object) -> Member[Any] | None:
    """The member behind a dependency :meth:`Registry.depends` made, else None."""
    return dependency if isinstance(dependency, Member) else None
