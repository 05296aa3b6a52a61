"""Every typed alias of a service's deps.py hands over the type it declares.

``XDep = Annotated[X, OBJECTS.depends(X, lambda o: o.x)]``: no type checker looks into an
``Annotated`` alias's metadata, so nothing static relates ``X`` to the member the lambda picks.
This test does, alias by alias, without building a service: the alias declares the type
``depends`` recorded, and the lambda, run on a stand-in of the objects dataclass whose every
member is its annotated type, gives that type (or a subclass; an object of it, for a lambda that
builds one from several members).
"""

from __future__ import annotations

import importlib
import typing
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin, get_type_hints

import pytest

from netplatform.settings import SERVICE_NAMES
from netplatform.web.registry import Member, Registry, members_of


def aliases(module: Any) -> dict[str, tuple[Any, Member[Any]]]:
    """Each registry alias of ``module``: its declared type and the member behind it."""
    found = {}
    for name, value in vars(module).items():
        if get_origin(value) is typing.Annotated:
            declared, *metadata = get_args(value)
            for item in metadata:
                if (member := members_of(item)) is not None:
                    found[name] = (declared, member)
    return found


class _Fields:
    """The objects dataclass with each member replaced by its annotated type."""

    def __init__(self, kind: type[Any]) -> None:
        self._hints = get_type_hints(kind)

    def __getattr__(self, name: str) -> Any:
        return self._hints[name]  # a KeyError names a member the dataclass lacks


def _gives(member: Member[Any]) -> bool:
    chosen = member.choose(_Fields(member.registry.kind))
    kind = get_origin(member.kind) or member.kind
    if isinstance(chosen, type):
        return issubclass(get_origin(chosen) or chosen, kind)
    origin = get_origin(chosen)
    return isinstance(chosen, kind) or (origin is not None and issubclass(origin, kind))


def mismatches(module: Any) -> list[str]:
    problems = []
    for name, (declared, member) in aliases(module).items():
        if declared is not member.kind:
            problems.append(f"{name}: declares {declared}, depends was given {member.kind}")
        elif not _gives(member):
            problems.append(f"{name}: its lambda does not pick a {member.kind.__name__}")
    return problems


@pytest.mark.parametrize("service", [name for name in SERVICE_NAMES if name != "console"])
def test_each_alias_hands_over_the_type_it_declares(service: str) -> None:
    module = importlib.import_module(f"netplatform.{service}.deps")
    assert aliases(module), f"{service}/deps.py declares no registry alias"
    assert not mismatches(module)


@dataclass(frozen=True)
class _Objects:
    number: int
    word: str


def test_an_alias_naming_another_type_or_member_is_found() -> None:
    registry = Registry(_Objects)
    module = type(
        "deps",
        (),
        {
            "Declared": Annotated[str, registry.depends(int, lambda o: o.number)],
            # Outside an alias mypy sees the mismatch; in a deps.py alias nothing but this test does.
            "Picked": Annotated[int, registry.depends(int, lambda o: o.word)],  # type: ignore[arg-type, return-value]
            "Right": Annotated[int, registry.depends(int, lambda o: o.number)],
        },
    )
    assert mismatches(module) == [
        "Declared: declares <class 'str'>, depends was given <class 'int'>",
        "Picked: its lambda does not pick a int",
    ]
