"""Feeds (``/feeds``), provisioned in the file-distribution service."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Query
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import FeedsDep, FeedsWriterDep
from ..request_schemas import REQUIRED_BODY, FeedRequest
from ..schemas import Feed
from ..spec import PERMISSIONS, SPEC
from ._common import DELETE_DONE, disclosed, new_router, use_existing

router = new_router("/feeds", "feeds")
Payload = Annotated[Feed | None, Body()]


@router.post(
    "",
    summary="Create a feed (or retry one whose provisioning failed); the one answer that shows its "
    "publishers' and subscribers' passwords",
    responses=answers(SPEC, Feed, 404, 409),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("feeds"))},
)
def create_feed(
    feeds: FeedsDep,
    body: Annotated[FeedRequest, Body(default_factory=FeedRequest)],
    useExisting: Annotated[
        str | None, Query(description="`true`: answer the stored feed instead of 409")
    ] = None,
) -> Response:
    feed, created = feeds.create(body, use_existing(useExisting))
    return reply(feed if created else disclosed(feed, writer=True))


@router.get(
    "",
    summary="Feeds, optionally filtered by name and version",
    responses=answers(SPEC, list[Feed]),
    openapi_extra=requires(PERMISSIONS.read("feeds")),
)
def list_feeds(
    feeds: FeedsDep,
    writer: FeedsWriterDep,
    feedName: Annotated[str | None, Query(description="feed name to match")] = None,
    version: Annotated[str | None, Query(description="feed version, exact")] = None,
    match: Annotated[str | None, Query(description="`startsWith` or `contains`; otherwise exact")] = None,
) -> Response:
    return reply([disclosed(feed, writer=writer) for feed in feeds.find(feedName, version, match)])


@router.get(
    "/{id}",
    summary="One feed by feedId",
    responses=answers(SPEC, Feed, 404),
    openapi_extra=requires(PERMISSIONS.read("feeds")),
)
def get_feed(feeds: FeedsDep, writer: FeedsWriterDep, id: str) -> Response:
    return reply(disclosed(feeds.get(id), writer=writer))


@router.put(
    "/{id}",
    summary="Update a feed's description, formatUuid and suspended",
    responses=answers(SPEC, Feed, 404),
    openapi_extra=requires(PERMISSIONS.write("feeds")),
)
def update_feed(feeds: FeedsDep, id: str, body: Payload = None) -> Response:
    return reply(disclosed(feeds.update(id, body or Feed()), writer=True))


@router.delete(
    "/{id}",
    summary="Delete a feed there and here",
    responses=answers(SPEC, None, 404, status=204),
    openapi_extra=requires(PERMISSIONS.write("feeds")),
    **DELETE_DONE,
)
def delete_feed(feeds: FeedsDep, id: str) -> Response:
    feeds.delete(id)
    return reply(None, 204)
