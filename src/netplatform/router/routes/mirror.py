"""The internal routes of mirror agents: a topic's messages by sequence number, consuming nothing,
and the list of the agents this router runs.

A mirror agent of another router reads here (docs/router.md, "Mirror agents"): unlike a fetch,
which moves its group before answering, a read moves nothing, so an agent that dies between
reading and publishing reads the same messages again from the position it recorded.

Both routes need ``platform.router.internal|mirror|call`` (the built-in role ``platform.mirror``
of mirror agents' identity ``svc.mirror``, ``platform.node``, or ``platform.admin``): the kernel
checks it, and no topic ACL applies on top, since mirror agents are on none.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ...clock import wire_time_ms
from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import per_object, requires
from ..deps import CallerDep, EventsDep, MirrorsDep
from ..mirror_agents import AgentStatus
from ..mirror_settings import EffectiveSettings
from ..mirror_source import HEAD_HEADER, ROUTER_ID_HEADER
from ..repository.mirrors import StoredSettings
from ..schemas import (
    MirrorAgentBody,
    MirrorAgentList,
    MirroredMessage,
    MirroredTopicBody,
    MirrorSettingsBody,
    MirrorSettingsRequest,
)
from ..spec import PERMISSIONS, SPEC
from .events import DEFAULT_LIMIT, MAX_LIMIT, MAX_TIMEOUT_MS

router = APIRouter(prefix="/internal/mirror", tags=["mirror"])


@router.get(
    "/{topic}",
    summary="Messages after sequence `after`, oldest first, with their sequence numbers; moves nothing",
    responses=answers(
        SPEC,
        list[MirroredMessage],
        403,
        404,
        503,
        headers={
            HEAD_HEADER: {
                "description": "the topic's last sequence number when the router answered "
                "(0: none yet): a reader's lag is this minus the last seq it holds",
                "schema": {"type": "integer", "minimum": 0},
            },
            ROUTER_ID_HEADER: {
                "description": "this router's id, the same on every instance over its database: "
                "a mirror agent refuses its own router as a source",
                "schema": {"type": "string"},
            },
        },
    ),
    openapi_extra=requires(PERMISSIONS.internal("mirror")),
)
async def read(
    topic: str,
    events: EventsDep,
    mirrors: MirrorsDep,
    after: Annotated[int, Query(ge=0, le=2**62, description="last sequence already read; 0: none")] = 0,
    timeout_ms: Annotated[
        int, Query(alias="timeout", ge=0, le=MAX_TIMEOUT_MS, description="long poll, milliseconds")
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="most messages returned")] = DEFAULT_LIMIT,
) -> Response:
    read = await events.read(topic, after=after, limit=limit, timeout_s=timeout_ms / 1000)
    head = await events.head(topic)  # after the read: never behind what it answers
    headers = {HEAD_HEADER: str(head), ROUTER_ID_HEADER: await mirrors.settings.router_id()}
    return reply([{"seq": seq, "message": message} for seq, message in read], headers=headers)


agents_router = APIRouter(prefix="/internal/mirror-agents", tags=["mirror"])


@agents_router.get(
    "",
    summary="The mirror agents this router runs: name, source, whitelist and state of each",
    responses=answers(SPEC, MirrorAgentList, 403),
    openapi_extra=requires(PERMISSIONS.internal("mirror")),
)
async def agents(mirrors: MirrorsDep) -> Response:
    """What the bus controller checks before it calls an agent VALID: the definitions the
    router applied from its bridge-admin topic, whether an instance holds each, and how its
    copies go."""
    admin_topic, statuses = await mirrors.running()
    listing = MirrorAgentList(adminTopic=admin_topic or None, agents=[_body(status) for status in statuses])
    return reply(listing)


def _body(status: AgentStatus) -> MirrorAgentBody:
    agent = status.agent
    since = status.failing_since_ms
    return MirrorAgentBody(
        name=agent.name,
        source=agent.source_url,
        whitelist=list(agent.whitelist),
        state=status.state,
        instance=status.instance,
        positions=status.positions,
        lastError=status.last_error,
        failingSince=None if since is None else wire_time_ms(since),
        topics={topic: _topic(status, topic) for topic in agent.whitelist},
    )


def _topic(status: AgentStatus, topic: str) -> MirroredTopicBody:
    found = status.progress.get(topic)
    position = found.position if found else 0
    head = found.status.source_head if found else None
    return MirroredTopicBody(
        position=position,
        sourceHead=head,
        lag=None if head is None else max(head - position, 0),
        state=status.topic_state(topic),
        lastError=found.status.last_error if found else None,
    )


settings_router = APIRouter(prefix="/internal/mirror-settings", tags=["mirror"])


@settings_router.get(
    "",
    summary="The mirror settings this router follows: the bridge-admin topic, the allowed sources and "
    "the identity agents present",
    responses=answers(SPEC, MirrorSettingsBody, 403),
    openapi_extra=requires(PERMISSIONS.internal("mirror")),
)
async def get_settings(mirrors: MirrorsDep) -> Response:
    return reply(_settings(await mirrors.settings.effective()))


@settings_router.put(
    "",
    summary="Store the bridge-admin topic (made here, never adopted) and the sources mirror agents "
    "may connect to (the bus controller's registered clusters); a router administrator only",
    responses=answers(SPEC, MirrorSettingsBody, 403, 409, 503),
    openapi_extra=per_object("a router administrator"),
)
async def put_settings(body: MirrorSettingsRequest, mirrors: MirrorsDep, caller: CallerDep) -> Response:
    wanted = StoredSettings(body.adminTopic, tuple(dict.fromkeys(body.sources)))
    return reply(_settings(await mirrors.configure(wanted, caller)))


def _settings(effective: EffectiveSettings) -> MirrorSettingsBody:
    return MirrorSettingsBody(
        adminTopic=effective.admin_topic or None,
        configuredAdminTopic=effective.stored.admin_topic or None,
        adminTopicOverride=effective.admin_topic_override,
        sourceUser=effective.credentials[0],
        sourceCredentialOverride=effective.credential_override,
        sources=sorted(effective.sources),
    )
