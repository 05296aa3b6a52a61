"""The internal routes of mirror agents: a topic's messages by sequence number, consuming nothing,
and the list of the agents this router runs.

A mirror agent of another router reads here (docs/router.md, "Mirror agents"): unlike a fetch,
which moves its group before answering, a read moves nothing, so an agent that dies between
reading and publishing reads the same messages again from the position it recorded.

Both routes need ``platform.router.internal|mirror|call`` (the built-in role ``platform.node``,
which mirror agents' identities hold, or ``platform.admin``): the kernel checks it, and no topic
ACL applies on top, since mirror agents are on none.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from ...web.openapi import error_responses
from ...web.permissions import requires
from ..app import PERMISSIONS, SPEC
from ..deps import EventsDep, MirrorsDep
from ..mirror_agents import AgentStatus
from ..schemas import MirrorAgentBody, MirrorAgentList, MirroredMessage
from .events import DEFAULT_LIMIT, MAX_LIMIT, MAX_TIMEOUT_MS

router = APIRouter(prefix="/internal/mirror", tags=["mirror"])


@router.get(
    "/{topic}",
    summary="Messages after sequence `after`, oldest first, with their sequence numbers; moves nothing",
    responses={200: {"model": list[MirroredMessage]}, **error_responses(SPEC, 403, 404, 503)},
    openapi_extra=requires(PERMISSIONS.internal("mirror")),
)
async def read(
    topic: str,
    events: EventsDep,
    after: Annotated[int, Query(ge=0, le=2**62, description="last sequence already read; 0: none")] = 0,
    timeout_ms: Annotated[
        int, Query(alias="timeout", ge=0, le=MAX_TIMEOUT_MS, description="long poll, milliseconds")
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="most messages returned")] = DEFAULT_LIMIT,
) -> JSONResponse:
    read = await events.read(topic, after=after, limit=limit, timeout_s=timeout_ms / 1000)
    return JSONResponse([{"seq": seq, "message": message} for seq, message in read])


agents_router = APIRouter(prefix="/internal/mirror-agents", tags=["mirror"])


@agents_router.get(
    "",
    summary="The mirror agents this router runs: name, source, whitelist and state of each",
    responses={200: {"model": MirrorAgentList}, **error_responses(SPEC, 403)},
    openapi_extra=requires(PERMISSIONS.internal("mirror")),
)
async def agents(mirrors: MirrorsDep) -> JSONResponse:
    """What the bus controller checks before it calls an agent VALID: the definitions the
    router applied from its bridge-admin topic, and whether an instance holds each."""
    admin_topic = mirrors.config.admin_topic or None
    listing = MirrorAgentList(
        adminTopic=admin_topic, agents=[_body(status) for status in await mirrors.running()]
    )
    return JSONResponse(listing.model_dump())


def _body(status: AgentStatus) -> MirrorAgentBody:
    agent = status.agent
    return MirrorAgentBody(
        name=agent.name,
        source=agent.source_url,
        whitelist=list(agent.whitelist),
        state="running" if status.running else "waiting",
        instance=status.instance,
        positions=status.positions,
    )
