"""Topics (``/topics``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Query, Request
from fastapi.responses import JSONResponse, Response

from .. import topics
from ..schemas import Topic
from ._shared import DELETE_DONE, answers, database, new_router, no_content, reply, settings_of

router = new_router("/topics", "topics")
Payload = Annotated[Topic | None, Body()]
UseExisting = Annotated[
    str | None,
    Query(description="`true` (any case): answer an existing topic of the same fqtn instead of 409"),
]


@router.post("", summary="Create a topic and its clients", responses=answers(Topic, 404, 409))
def create_topic(request: Request, body: Payload = None, useExisting: UseExisting = None) -> JSONResponse:
    use_existing = (useExisting or "").lower() == "true"
    with database(request).write() as session:
        topic = topics.create(session, settings_of(request), body or Topic(), use_existing)
    return reply(topic)


@router.get("", summary="All topics with their clients", responses=answers(list[Topic]))
def list_topics(request: Request) -> JSONResponse:
    with database(request).read() as session:
        return reply(topics.list_topics(session))


@router.get("/{topicId}", summary="One topic by fqtn", responses=answers(Topic, 404))
def get_topic(request: Request, topicId: str) -> JSONResponse:
    with database(request).read() as session:
        return reply(topics.get(session, topicId))


@router.put(
    "/{topicId}", summary="Update a topic's description and replication", responses=answers(Topic, 404)
)
def update_topic(request: Request, topicId: str, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        topic = topics.update(session, settings_of(request), topicId, body or Topic())
    return reply(topic)


@router.delete(
    "/{topicId}",
    summary="Delete a topic and its clients",
    responses=answers(None, 404, status=204),
    **DELETE_DONE,
)
def delete_topic(request: Request, topicId: str) -> Response:
    with database(request).write() as session:
        topics.delete(session, settings_of(request), topicId)
    return no_content()
