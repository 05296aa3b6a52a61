"""Bus settings (``/bus``, ``/bus_v2``) and the health info (``/info``).

Creating and replacing them needs ``platform.bus.admin|bus|write``, which only administrators hold
(bus.writer does not): ``drProvUrl`` is where the bus presents its own credential, and
``bridgeAdminTopic`` the topic whose messages make routers connect to other hosts (issue 36,
point 1). Every field of the one settings object is the deployment's, so the whole write is an
administrator's."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import BusSettingsDep
from ..request_schemas import REQUIRED_BODY, BusSettingsRequest
from ..schemas import BusSettings
from ..spec import PERMISSIONS, SPEC
from ._common import new_router

router = new_router("", "bus settings")
ADMINISTER = PERMISSIONS.admin("bus")
"""The settings name where the bus sends its own credential (``drProvUrl``) and the bridge-admin
topic whose messages make routers call other hosts: administrators only."""

DEPRECATED_CREATE = (
    "Create is deprecated since persistence: the first POST initialises, later ones answer unchanged"
)

SettingsBody = Annotated[BusSettingsRequest, Body(default_factory=BusSettingsRequest)]


def _get(service: BusSettingsDep) -> Response:
    return reply(service.get())


def _create(service: BusSettingsDep, body: SettingsBody) -> Response:
    return reply(service.create(body))


def _replace(service: BusSettingsDep, body: SettingsBody) -> Response:
    return reply(service.replace(body))


for _path in ("/bus", "/bus_v2"):
    router.add_api_route(
        _path,
        _get,
        methods=["GET"],
        summary="The bus settings",
        responses=answers(SPEC, BusSettings),
        openapi_extra=requires(PERMISSIONS.read("bus")),
    )
    router.add_api_route(
        _path,
        _create,
        methods=["POST"],
        summary="Initialise the bus settings (deprecated)",
        description=DEPRECATED_CREATE,
        deprecated=True,
        responses=answers(SPEC, BusSettings),
        openapi_extra={**REQUIRED_BODY, **requires(ADMINISTER)},
    )
    router.add_api_route(
        _path,
        _replace,
        methods=["PUT"],
        summary="Replace the bus settings",
        responses=answers(SPEC, BusSettings),
        openapi_extra={**REQUIRED_BODY, **requires(ADMINISTER)},
    )


@router.get(
    "/info",
    summary="Health info: the bus settings",
    responses=answers(SPEC, BusSettings),
    openapi_extra=requires(PERMISSIONS.read("info")),
)
def info(service: BusSettingsDep) -> Response:
    return reply(service.get())
