"""Mirror bridges (``/bridge``): report agents and edit their topic whitelists."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Query
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import BridgesDep
from ..schemas import BrTopic, MirrorMaker
from ..spec import PERMISSIONS, SPEC
from ._common import new_router

router = new_router("/bridge", "mirror bridges")

Agent = Annotated[str | None, Query(description="name of one mirror-maker agent")]


@router.get(
    "",
    summary="Bridge topic counts; one agent by mmagent or source+target",
    responses=answers(SPEC, list[BrTopic] | MirrorMaker, 404),
    openapi_extra=requires(PERMISSIONS.read("bridge")),
)
def report_bridges(
    bridges: BridgesDep,
    mmagent: Agent = None,
    detail: Annotated[bool, Query(description="list agents (or the agent's topics)")] = False,
    source: Annotated[str | None, Query(description="source cluster fqdn")] = None,
    target: Annotated[str | None, Query(description="target cluster fqdn")] = None,
) -> Response:
    return reply(bridges.report(mmagent, source, target, detail))


@router.put(
    "",
    summary="Replace, refresh or split one agent's whitelist",
    responses=answers(SPEC, MirrorMaker, 404),
    openapi_extra=requires(PERMISSIONS.write("bridge")),
)
def edit_bridge(
    bridges: BridgesDep,
    body: Annotated[MirrorMaker | None, Body()] = None,
    mmagent: Agent = None,
    refresh: Annotated[bool, Query(description="keep the stored whitelist")] = False,
    split: Annotated[bool, Query(description="spread topics beyond the limit over overflow agents")] = False,
) -> Response:
    return reply(bridges.edit(mmagent, body, refresh=refresh, split=split))
