"""Central's side of the sites (distribution/sites/central.py): the provisioning edge nodes follow,
the log records they ship. Internal routes: ``platform.node`` (and ``platform.admin``) only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.errors import BadRequest
from ...web.longpoll import ended
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import CentralSideDep
from ..schemas import ProvisioningAnswer, ShippedLogs, ShippedLogsAnswer
from ..sites.central import MAX_WAIT_S
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/internal", tags=["sites"])


@router.get(
    "/provisioning",
    summary="Feeds, subscriptions, routes and nodes once past a generation (edge nodes follow it)",
    responses=answers(SPEC, ProvisioningAnswer, 400),
    openapi_extra=requires(PERMISSIONS.internal("provisioning")),
)
async def provisioning(
    request: Request,
    central: CentralSideDep,
    generation: Annotated[int, Query(description="the generation the caller holds (-1: none)", ge=-1)] = -1,
    wait: Annotated[
        float, Query(description="seconds to wait for a change (a long poll)", ge=0, le=MAX_WAIT_S)
    ] = 0,
) -> Response:
    now, rows = await central.after(generation, wait, ended(request))
    return reply({"generation": now, "provisioning": rows})


@router.post(
    "/logs",
    summary="Take the log records an edge node ships (each (node, id) once)",
    responses=answers(SPEC, ShippedLogsAnswer, 400),
    openapi_extra=requires(PERMISSIONS.internal("logs")),
)
def take_logs(central: CentralSideDep, shipped: ShippedLogs) -> Response:
    try:
        taken = central.take_logs(shipped.node, shipped.records)
    except ValueError as error:
        raise BadRequest(str(error)) from None
    return reply({"taken": taken})
