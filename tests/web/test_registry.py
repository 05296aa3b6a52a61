"""The registry of a service's objects: kept once on the app, handed to routes by its dependency.

A small FastAPI app served by uvicorn over real HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated

import pytest
from fastapi import FastAPI, Request

from netplatform.web.registry import Registry

from ..support.servers import LiveServer, http_client


@dataclass(frozen=True)
class Greeter:
    word: str


@dataclass(frozen=True)
class Objects:
    greeter: Greeter
    count: int


OBJECTS = Registry(Objects)
GreeterDep = Annotated[Greeter, OBJECTS.depends(Greeter, lambda o: o.greeter)]


def served(objects: Objects) -> FastAPI:
    app = FastAPI()
    OBJECTS.install(app, objects)

    @app.get("/greeting")
    async def greeting(greeter: GreeterDep) -> str:
        return greeter.word

    @app.get("/count")
    async def count(request: Request) -> int:
        return OBJECTS.pick(lambda o: o.count)(request)

    return app


def test_routes_get_the_installed_members_and_a_replaced_registry() -> None:
    app = served(Objects(Greeter("hello"), 3))
    with LiveServer(app) as server, http_client(server.url) as client:
        assert client.get("/greeting").json() == "hello"
        assert client.get("/count").json() == 3
        OBJECTS.install(app, replace(OBJECTS.of(app), greeter=Greeter("bye")))
        assert client.get("/greeting").json() == "bye"


def test_objects_of_another_type_are_refused() -> None:
    with pytest.raises(TypeError, match="Greeter is not Objects"):
        OBJECTS.install(FastAPI(), Greeter("hello"))  # type: ignore[arg-type]
