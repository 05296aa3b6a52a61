"""Feeds (``/feeds``), provisioned in the file-distribution service."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Query, Request
from fastapi.responses import JSONResponse, Response

from .. import feeds
from ..schemas import Feed
from ._shared import DELETE_DONE, answers, database, new_router, no_content, provisioner_of, reply

router = new_router("/feeds", "feeds")
Payload = Annotated[Feed | None, Body()]


@router.post(
    "",
    summary="Create a feed (or retry one whose provisioning failed)",
    responses=answers(Feed, 404, 409),
)
def create_feed(
    request: Request,
    body: Payload = None,
    useExisting: Annotated[
        str | None, Query(description="`true`: answer the stored feed instead of 409")
    ] = None,
) -> JSONResponse:
    use_existing = (useExisting or "").lower() == "true"
    return reply(feeds.create(provisioner_of(request), body or Feed(), use_existing))


@router.get("", summary="Feeds, optionally filtered by name and version", responses=answers(list[Feed]))
def list_feeds(
    request: Request,
    feedName: Annotated[str | None, Query(description="feed name to match")] = None,
    version: Annotated[str | None, Query(description="feed version, exact")] = None,
    match: Annotated[str | None, Query(description="`startsWith` or `contains`; otherwise exact")] = None,
) -> JSONResponse:
    with database(request).read() as session:
        return reply(feeds.list_feeds(session, feedName, version, match))


@router.get("/{id}", summary="One feed by feedId", responses=answers(Feed, 404))
def get_feed(request: Request, id: str) -> JSONResponse:
    with database(request).read() as session:
        return reply(feeds.get(session, id))


@router.put(
    "/{id}", summary="Update a feed's description, formatUuid and suspended", responses=answers(Feed, 404)
)
def update_feed(request: Request, id: str, body: Payload = None) -> JSONResponse:
    return reply(feeds.update(provisioner_of(request), id, body or Feed()))


@router.delete(
    "/{id}", summary="Delete a feed there and here", responses=answers(None, 404, status=204), **DELETE_DONE
)
def delete_feed(request: Request, id: str) -> Response:
    feeds.delete(provisioner_of(request), id)
    return no_content()
