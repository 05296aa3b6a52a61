"""Topic routes: create, list, read, delete, and grants to producers and consumers (issue 14).

Issue 23: reads stay open to every authenticated identity, as in the reference; creating and
deleting need router.writer (deleting also the topic's owner or a router admin); granting and
revoking need the topic's owner, a router admin or router.writer, decided in the handler.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import per_object, requires
from ..deps import CallerDep, GranterDep, TopicsDep
from ..errors import bad_request
from ..schemas import GroupLag, GroupList, Identity, TopicBody, TopicList, TopicRequest, render_topic
from ..spec import PERMISSIONS, SPEC
from ..topic_model import ROLE_PREFIX, Principal
from ..topics import KINDS

router = APIRouter(prefix="/topics", tags=["topics"])

GrantKind = Literal["producers", "consumers"]
OPEN_READ = per_object("any authenticated identity")
GRANTERS = per_object("the topic's owner, a router administrator, or router.writer")
WRITE = requires(PERMISSIONS.write("topics"))

IdentityPath = Annotated[
    Identity,
    Path(
        description="an identity, or `role:<name>`: a role every holder of which is admitted "
        "(an identity named like a role is not)"
    ),
]


def principal_of(segment: str) -> Principal:
    """The grant's principal: ``role:<name>`` a role, anything else an identity (docs/router.md)."""
    principal = Principal.parse(segment)
    if not principal.name:
        raise bad_request(f"{ROLE_PREFIX} names no role")
    return principal


@router.post(
    "/create",
    summary="Create a topic (its creator becomes its owner)",
    responses=answers(SPEC, TopicBody, 403, 409, 503),
    openapi_extra=WRITE,
)
async def create_topic(body: TopicRequest, topics: TopicsDep, caller: CallerDep) -> Response:
    return reply(render_topic(await topics.create(body.topic(caller.identity))))


@router.get("", summary="Names of every topic", responses=answers(SPEC, TopicList), openapi_extra=OPEN_READ)
async def list_topics(topics: TopicsDep) -> Response:
    return reply(TopicList(topics=await topics.names()))


@router.get(
    "/{topic}",
    summary="A topic and its ACLs",
    responses=answers(SPEC, TopicBody, 404),
    openapi_extra=OPEN_READ,
)
async def get_topic(topic: str, topics: TopicsDep) -> Response:
    return reply(render_topic(await topics.get(topic)))


@router.get(
    "/{topic}/groups",
    summary="The topic's consumer groups and how many messages each has still to fetch",
    responses=answers(SPEC, GroupList, 404, 503),
    openapi_extra=OPEN_READ,
)
async def list_groups(topic: str, topics: TopicsDep) -> Response:
    # Readable by whoever may read the topic itself: anyone (as GET /topics/{topic}).
    lags = await topics.group_lags(topic)
    return reply(GroupList(groups=[GroupLag(name=n, lag=lag) for n, lag in lags]))


@router.delete(
    "/{topic}",
    summary="Delete a topic and its messages (router.writer, and the owner or a router admin)",
    status_code=204,
    responses=answers(SPEC, None, 403, 404, 503, status=204),
    openapi_extra=WRITE,
)
async def delete_topic(topic: str, topics: TopicsDep, caller: CallerDep) -> Response:
    await topics.delete(topic, caller)
    return reply(None, 204)


@router.put(
    "/{topic}/{kind}/{identity}",
    summary="Permit an identity, or a role (`role:<name>`), to publish (producers) or consume (consumers)",
    responses=answers(SPEC, TopicBody, 403, 404),
    openapi_extra=GRANTERS,
)
async def grant(
    topic: str, kind: GrantKind, identity: IdentityPath, topics: TopicsDep, caller: GranterDep
) -> Response:
    return reply(render_topic(await topics.grant(topic, KINDS[kind], principal_of(identity), caller)))


@router.delete(
    "/{topic}/{kind}/{identity}",
    summary="Revoke a grant; the ACL stays enabled",
    status_code=204,
    responses=answers(SPEC, None, 403, 404, status=204),
    openapi_extra=GRANTERS,
)
async def revoke(
    topic: str, kind: GrantKind, identity: IdentityPath, topics: TopicsDep, caller: GranterDep
) -> Response:
    await topics.revoke(topic, KINDS[kind], principal_of(identity), caller)
    return reply(None, 204)
