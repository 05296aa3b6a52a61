"""Topics (``/topics``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Query
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import REPLAYABLE_TOPIC, TopicsDep
from ..request_schemas import REQUIRED_BODY, TokenPath, TopicRequest
from ..schemas import Topic
from ..spec import PERMISSIONS, SPEC
from ._common import DELETE_DONE, new_router, use_existing

router = new_router("/topics", "topics")
Payload = Annotated[Topic | None, Body()]
UseExisting = Annotated[
    str | None,
    Query(description="`true` (any case): answer an existing topic of the same fqtn instead of 409"),
]


@router.post(
    "",
    summary="Create a topic and its clients",
    responses=answers(SPEC, Topic, 404, 409),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("topics"))},
)
def create_topic(
    topics: TopicsDep,
    body: Annotated[TopicRequest, Body(default_factory=TopicRequest)],
    useExisting: UseExisting = None,
) -> Response:
    return reply(topics.create(body, use_existing(useExisting)))


@router.get(
    "",
    summary="All topics with their clients",
    responses=answers(SPEC, list[Topic]),
    openapi_extra=requires(PERMISSIONS.read("topics")),
)
def list_topics(topics: TopicsDep) -> Response:
    return reply(topics.all())


@router.get(
    "/{topicId}",
    dependencies=[REPLAYABLE_TOPIC],
    summary="One topic by fqtn",
    responses=answers(SPEC, Topic, 404),
    openapi_extra=requires(PERMISSIONS.read("topics")),
)
def get_topic(topics: TopicsDep, topicId: TokenPath) -> Response:
    return reply(topics.get(topicId))


@router.put(
    "/{topicId}",
    summary="Update a topic's description and replication",
    responses=answers(SPEC, Topic, 404),
    openapi_extra=requires(PERMISSIONS.write("topics")),
)
def update_topic(topics: TopicsDep, topicId: str, body: Payload = None) -> Response:
    return reply(topics.update(topicId, body or Topic()))


@router.delete(
    "/{topicId}",
    summary="Delete a topic and its clients",
    responses=answers(SPEC, None, 404, status=204),
    openapi_extra=requires(PERMISSIONS.write("topics")),
    **DELETE_DONE,
)
def delete_topic(topics: TopicsDep, topicId: str) -> Response:
    topics.delete(topicId)
    return reply(None, 204)
