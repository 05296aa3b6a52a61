"""Every typed alias of a service's deps.py hands over an object of the type it declares.

``XDep = Annotated[X, OBJECTS.depends(lambda o: o.x)]``: mypy checks neither the lambda against
``X`` nor ``X`` against the member, so an alias could name one type and give another; this test
builds each service and compares, alias by alias.
"""

from __future__ import annotations

import importlib
import typing
from typing import Any, get_args, get_origin

import pytest

from netplatform.services import create_service_app
from netplatform.settings import SERVICE_NAMES
from netplatform.web.registry import members_of

from ..conftest import SettingsFactory
from ..support.databases import migrate


def _aliases(module: Any) -> dict[str, tuple[Any, Any]]:
    found = {}
    for name, value in vars(module).items():
        if get_origin(value) is typing.Annotated:
            declared, *metadata = get_args(value)
            for item in metadata:
                if members_of(item) is not None:
                    found[name] = (declared, item)
    return found


@pytest.mark.parametrize("service", SERVICE_NAMES)
def test_each_alias_gives_the_type_it_declares(service: str, make_settings: SettingsFactory) -> None:
    settings = make_settings()
    migrate(settings)
    app = create_service_app(service, settings)
    aliases = _aliases(importlib.import_module(f"netplatform.{service}.deps"))
    assert aliases, f"{service}/deps.py declares no registry alias"
    for name, (declared, dependency) in aliases.items():
        chosen = members_of(dependency)
        assert chosen is not None
        registry, choose = chosen
        member = choose(registry.of(app))
        expected = get_origin(declared) or declared
        assert isinstance(member, expected), (
            f"{service}.deps.{name}: {type(member).__name__} is not {declared}"
        )
