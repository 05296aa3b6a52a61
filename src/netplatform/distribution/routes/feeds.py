"""Feed routes: POST / and GET/PUT/DELETE /feed/{feedId} (spec 4.2)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..documents import parse_object
from ..feeds import parse_feed
from ..provisioning import FEED_NOT_FOUND
from ..schemas import FeedBody, FeedRequest, render_feed
from ._common import (
    FEED_MEDIA_TYPE,
    BodyDep,
    CallerDep,
    ProvisioningDep,
    base_url,
    errors,
    json_request_body,
    parse_object_id,
    refuse_methods,
    require_content_type,
)

router = APIRouter(prefix="", tags=["feeds"])


@router.post(
    "/",
    summary="Create a feed",
    responses={200: {"model": FeedBody}, **errors(409, 415)},
    openapi_extra=json_request_body(FeedRequest, FEED_MEDIA_TYPE),
)
def create_feed(
    request: Request, caller: CallerDep, body: BodyDep, provisioning: ProvisioningDep
) -> Response:
    require_content_type(request, FEED_MEDIA_TYPE)
    document = parse_object(body)
    provisioning.ensure_feed_capacity()
    feed = provisioning.create_feed(parse_feed(document, creating=True), caller)
    rendered = render_feed(feed, base_url(request))
    return JSONResponse(rendered, headers={"Location": rendered["links"]["self"]})


@router.get("/feed/{feed_id}", summary="Get a feed", responses={200: {"model": FeedBody}, **errors(404)})
def get_feed(request: Request, feed_id: str, caller: CallerDep, provisioning: ProvisioningDep) -> Response:
    feed = provisioning.feed(parse_object_id(feed_id, FEED_NOT_FOUND))
    return JSONResponse(render_feed(feed, base_url(request)))


@router.put(
    "/feed/{feed_id}",
    summary="Update a feed (updatable fields only)",
    responses={200: {"model": FeedBody}, **errors(403, 404, 415)},
    openapi_extra=json_request_body(FeedRequest, FEED_MEDIA_TYPE),
)
def update_feed(
    request: Request, feed_id: str, caller: CallerDep, body: BodyDep, provisioning: ProvisioningDep
) -> Response:
    number = parse_object_id(feed_id, FEED_NOT_FOUND)
    provisioning.feed_to_change(number, caller)
    require_content_type(request, FEED_MEDIA_TYPE)
    fields = parse_feed(parse_object(body), creating=False)
    feed = provisioning.update_feed(number, fields, caller)
    return JSONResponse(render_feed(feed, base_url(request)))


@router.delete("/feed/{feed_id}", summary="Delete a feed", status_code=204, responses=errors(403, 404))
def delete_feed(feed_id: str, caller: CallerDep, provisioning: ProvisioningDep) -> Response:
    provisioning.delete_feed(parse_object_id(feed_id, FEED_NOT_FOUND), caller)
    return Response(status_code=204)


refuse_methods(router, "/", ["PUT", "DELETE"], "drFeedsURL")
refuse_methods(router, "/feed/{feed_id}", ["POST"], "feedURL")
