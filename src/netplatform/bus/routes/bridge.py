"""Mirror bridges (``/bridge``): report agents and edit their topic whitelists."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Query, Request
from fastapi.responses import JSONResponse

from .. import mirrors
from ..mirrors import limits_of
from ..schemas import BrTopic, MirrorMaker
from ._shared import answers, database, new_router, reply, settings_of

router = new_router("/bridge", "mirror bridges")

Agent = Annotated[str | None, Query(description="name of one mirror-maker agent")]


@router.get(
    "",
    summary="Bridge topic counts; one agent by mmagent or source+target",
    responses=answers(list[BrTopic] | MirrorMaker, 404),
)
def report_bridges(
    request: Request,
    mmagent: Agent = None,
    detail: Annotated[bool, Query(description="list agents (or the agent's topics)")] = False,
    source: Annotated[str | None, Query(description="source cluster fqdn")] = None,
    target: Annotated[str | None, Query(description="target cluster fqdn")] = None,
) -> JSONResponse:
    name = mirrors.chosen_agent_name(mmagent, source, target)
    with database(request).read() as session:
        return reply(mirrors.report(session, name, detail))


@router.put(
    "", summary="Replace, refresh or split one agent's whitelist", responses=answers(MirrorMaker, 404)
)
def edit_bridge(
    request: Request,
    body: Annotated[MirrorMaker | None, Body()] = None,
    mmagent: Agent = None,
    refresh: Annotated[bool, Query(description="keep the stored whitelist")] = False,
    split: Annotated[bool, Query(description="spread topics beyond the limit over overflow agents")] = False,
) -> JSONResponse:
    limits = limits_of(settings_of(request))
    with database(request).write() as session:
        agent = mirrors.edit(session, limits, mmagent, body, refresh=refresh, split=split)
    return reply(agent)
