"""Bus settings (``/bus``, ``/bus_v2``) and the health info (``/info``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request
from fastapi.responses import JSONResponse

from .. import config
from ..schemas import BusSettings
from ._shared import answers, database, new_router, reply

router = new_router("", "bus settings")

DEPRECATED_CREATE = (
    "Create is deprecated since persistence: the first POST initialises, later ones answer unchanged"
)


def _get(request: Request) -> JSONResponse:
    with database(request).read() as session:
        return reply(config.get(session))


OptionalBody = Annotated[BusSettings | None, Body()]


def _create(request: Request, body: OptionalBody = None) -> JSONResponse:
    with database(request).write() as session:
        stored = config.create(session, body or BusSettings())
    return reply(stored)


def _replace(request: Request, body: OptionalBody = None) -> JSONResponse:
    with database(request).write() as session:
        stored = config.replace(session, body or BusSettings())
    return reply(stored)


for _path in ("/bus", "/bus_v2"):
    router.add_api_route(
        _path, _get, methods=["GET"], summary="The bus settings", responses=answers(BusSettings)
    )
    router.add_api_route(
        _path,
        _create,
        methods=["POST"],
        summary="Initialise the bus settings (deprecated)",
        description=DEPRECATED_CREATE,
        deprecated=True,
        responses=answers(BusSettings),
    )
    router.add_api_route(
        _path, _replace, methods=["PUT"], summary="Replace the bus settings", responses=answers(BusSettings)
    )


@router.get("/info", summary="Health info: the bus settings", responses=answers(BusSettings))
def info(request: Request) -> JSONResponse:
    return _get(request)
