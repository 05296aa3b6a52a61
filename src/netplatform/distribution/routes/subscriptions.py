"""Subscription routes: POST /subscribe/{feedId} and GET/PUT/DELETE /subs/{subId} (spec 4.2)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..documents import parse_object
from ..provisioning import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from ..schemas import SubscriptionBody, SubscriptionRequest, render_subscription
from ..subscriptions import parse_subscription
from ._common import (
    SUBSCRIPTION_MEDIA_TYPE,
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

router = APIRouter(prefix="", tags=["subscriptions"])


@router.post(
    "/subscribe/{feed_id}",
    summary="Subscribe to a feed",
    status_code=201,
    responses={201: {"model": SubscriptionBody}, **errors(404, 409, 415)},
    openapi_extra=json_request_body(SubscriptionRequest, SUBSCRIPTION_MEDIA_TYPE),
)
def create_subscription(
    request: Request, feed_id: str, caller: CallerDep, body: BodyDep, provisioning: ProvisioningDep
) -> Response:
    number = parse_object_id(feed_id, FEED_NOT_FOUND)
    provisioning.feed(number)
    require_content_type(request, SUBSCRIPTION_MEDIA_TYPE)
    document = parse_object(body)
    provisioning.ensure_subscription_capacity()
    subscription = provisioning.create_subscription(number, parse_subscription(document), caller)
    rendered = render_subscription(subscription, base_url(request))
    return JSONResponse(rendered, status_code=201, headers={"Location": rendered["links"]["self"]})


@router.get(
    "/subs/{sub_id}",
    summary="Get a subscription",
    responses={200: {"model": SubscriptionBody}, **errors(404)},
)
def get_subscription(
    request: Request, sub_id: str, caller: CallerDep, provisioning: ProvisioningDep
) -> Response:
    subscription = provisioning.subscription(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND))
    return JSONResponse(render_subscription(subscription, base_url(request)))


@router.put(
    "/subs/{sub_id}",
    summary="Update a subscription",
    responses={200: {"model": SubscriptionBody}, **errors(403, 404, 415)},
    openapi_extra=json_request_body(SubscriptionRequest, SUBSCRIPTION_MEDIA_TYPE),
)
def update_subscription(
    request: Request, sub_id: str, caller: CallerDep, body: BodyDep, provisioning: ProvisioningDep
) -> Response:
    number = parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND)
    provisioning.subscription_to_change(number, caller)
    require_content_type(request, SUBSCRIPTION_MEDIA_TYPE)
    fields = parse_subscription(parse_object(body))
    subscription = provisioning.update_subscription(number, fields, caller)
    return JSONResponse(render_subscription(subscription, base_url(request)))


@router.delete("/subs/{sub_id}", summary="Delete a subscription", status_code=204, responses=errors(403, 404))
def delete_subscription(sub_id: str, caller: CallerDep, provisioning: ProvisioningDep) -> Response:
    provisioning.delete_subscription(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND), caller)
    return Response(status_code=204)


refuse_methods(router, "/subscribe/{feed_id}", ["PUT", "DELETE"], "subscribeURL")
