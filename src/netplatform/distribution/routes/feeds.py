"""Feed routes: POST / and GET / (the feed by name and version, or the list of feed URLs), and
GET/PUT/DELETE /feed/{feedId} (spec 4.2)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.bodies import RawBody
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import REPLAYABLE, REPLAYABLE_FEED, CallerDep, ProvisioningDep, PublicBaseUrlDep
from ..errors import FEED_NOT_FOUND
from ..feed_model import parse_feed
from ..lenient_json import parse_object
from ..links import feed_links
from ..media_types import FEED_MEDIA_TYPE, require_content_type
from ..schemas import FeedBody, FeedRequest, FeedUpdateRequest, render_feed
from ..spec import PERMISSIONS, SPEC
from ._common import CALLER_STATED, FeedId, json_request_body, parse_object_id, refuse_methods

READ = requires(PERMISSIONS.read("feeds"))
WRITE = requires(PERMISSIONS.write("feeds"))

router = APIRouter(prefix="", tags=["feeds"])


@router.post(
    "/",
    summary="Create a feed",
    responses=answers(SPEC, FeedBody, 403, 409, 415),
    openapi_extra=json_request_body(FeedRequest, FEED_MEDIA_TYPE, **WRITE),
)
def create_feed(
    request: Request, caller: CallerDep, body: RawBody, provisioning: ProvisioningDep, base: PublicBaseUrlDep
) -> Response:
    require_content_type(request.headers.get("content-type"), FEED_MEDIA_TYPE)
    document = parse_object(body)
    provisioning.ensure_feed_capacity()
    feed = provisioning.create_feed(parse_feed(document, creating=True), caller)
    rendered = render_feed(feed, base)
    return reply(rendered, headers={"Location": rendered["links"]["self"]})


@router.get(
    "/",
    dependencies=[REPLAYABLE],
    summary="The feed of a name and version, else the URLs of the live feeds matching the filters",
    responses=answers(SPEC, FeedBody | list[str], 404),
    openapi_extra={**CALLER_STATED, **READ},
)
def list_feeds(
    caller: CallerDep,
    provisioning: ProvisioningDep,
    base: PublicBaseUrlDep,
    name: Annotated[str | None, Query(description="Feed name; with version: that feed")] = None,
    version: Annotated[str | None, Query(description="Feed version; used with name")] = None,
    publisher: Annotated[str | None, Query(description="Feeds created on behalf of this identity")] = None,
    subscriber: Annotated[
        str | None, Query(description="Feeds this identity has a live subscription to")
    ] = None,
) -> Response:
    # The reference's provisioning client finds a feed by name and version here (404 when none is live);
    # otherwise the feeds' self URLs, every given filter applied (reference: only the first of them).
    if name is not None and version is not None:
        return reply(render_feed(provisioning.feed_named(name, version), base))
    feed_ids = provisioning.feed_ids(name=name, publisher=publisher, subscriber=subscriber)
    return reply([feed_links(base, feed_id)["self"] for feed_id in feed_ids])


@router.get(
    "/feed/{feed_id}",
    dependencies=[REPLAYABLE_FEED],
    summary="Get a feed (endpoint passwords are not shown: only their hashes are stored)",
    responses=answers(SPEC, FeedBody, 404),
    openapi_extra={**CALLER_STATED, **READ},
)
def get_feed(
    feed_id: FeedId, caller: CallerDep, provisioning: ProvisioningDep, base: PublicBaseUrlDep
) -> Response:
    feed = provisioning.feed(parse_object_id(feed_id, FEED_NOT_FOUND))
    return reply(render_feed(feed, base))


@router.put(
    "/feed/{feed_id}",
    summary="Update a feed (updatable fields only; an endpoint without password keeps its own)",
    responses=answers(SPEC, FeedBody, 403, 404, 415),
    openapi_extra=json_request_body(FeedUpdateRequest, FEED_MEDIA_TYPE, **WRITE),
)
def update_feed(
    request: Request,
    feed_id: FeedId,
    caller: CallerDep,
    body: RawBody,
    provisioning: ProvisioningDep,
    base: PublicBaseUrlDep,
) -> Response:
    number = parse_object_id(feed_id, FEED_NOT_FOUND)
    provisioning.feed_to_change(number, caller)
    require_content_type(request.headers.get("content-type"), FEED_MEDIA_TYPE)
    fields = parse_feed(parse_object(body), creating=False)
    feed = provisioning.update_feed(number, fields, caller)
    return reply(render_feed(feed, base))


@router.delete(
    "/feed/{feed_id}",
    summary="Delete a feed",
    status_code=204,
    responses=answers(SPEC, None, 403, 404, status=204),
    openapi_extra={**CALLER_STATED, **WRITE},
)
def delete_feed(feed_id: FeedId, caller: CallerDep, provisioning: ProvisioningDep) -> Response:
    provisioning.delete_feed(parse_object_id(feed_id, FEED_NOT_FOUND), caller)
    return reply(None, 204)


refuse_methods(router, "/", ["PUT", "DELETE"], "drFeedsURL")
refuse_methods(router, "/feed/{feed_id}", ["POST"], "feedURL")
