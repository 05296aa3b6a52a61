"""Subscription routes: POST and GET /subscribe/{feedId} (create; the list of subscription URLs) and
GET/PUT/DELETE /subs/{subId} (spec 4.2)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.bodies import RawBody
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import REPLAYABLE, REPLAYABLE_SUBSCRIPTION, CallerDep, ProvisioningDep, PublicBaseUrlDep
from ..errors import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from ..lenient_json import parse_object
from ..links import subscription_links
from ..media_types import SUBSCRIPTION_MEDIA_TYPE, require_content_type
from ..schemas import SubscriptionBody, SubscriptionRequest, render_subscription
from ..spec import PERMISSIONS, SPEC
from ..subscription_model import PASSWORD_MASK, parse_subscription
from ._common import CALLER_STATED, FeedId, SubId, json_request_body, parse_object_id, refuse_methods

READ = requires(PERMISSIONS.read("subs"))
WRITE = requires(PERMISSIONS.write("subs"))

router = APIRouter(prefix="", tags=["subscriptions"])


@router.post(
    "/subscribe/{feed_id}",
    summary="Subscribe to a feed",
    status_code=201,
    responses=answers(SPEC, SubscriptionBody, 403, 404, 409, 415, status=201),
    openapi_extra=json_request_body(SubscriptionRequest, SUBSCRIPTION_MEDIA_TYPE, **WRITE),
)
def create_subscription(
    request: Request,
    feed_id: FeedId,
    caller: CallerDep,
    body: RawBody,
    provisioning: ProvisioningDep,
    base: PublicBaseUrlDep,
) -> Response:
    number = parse_object_id(feed_id, FEED_NOT_FOUND)
    provisioning.feed_to_subscribe(number, caller)
    require_content_type(request.headers.get("content-type"), SUBSCRIPTION_MEDIA_TYPE)
    document = parse_object(body)
    provisioning.ensure_subscription_capacity()
    fields = parse_subscription(document, creating=True)
    subscription = provisioning.create_subscription(number, fields, caller)
    # The answer that set the password carries it (the caller sent it); no other answer does.
    rendered = render_subscription(subscription, base, fields.delivery.password)
    return reply(rendered, 201, headers={"Location": rendered["links"]["self"]})


@router.get(
    "/subscribe/{feed_id}",
    dependencies=[REPLAYABLE],
    summary="The URLs of the feed's live subscriptions",
    responses=answers(SPEC, list[str], 404),
    openapi_extra={**CALLER_STATED, **READ},
)
def list_subscriptions(
    feed_id: FeedId, caller: CallerDep, provisioning: ProvisioningDep, base: PublicBaseUrlDep
) -> Response:
    number = parse_object_id(feed_id, FEED_NOT_FOUND)
    sub_ids = provisioning.subscription_ids(number)
    return reply([subscription_links(base, sub_id, number)["self"] for sub_id in sub_ids])


@router.get(
    "/subs/{sub_id}",
    dependencies=[REPLAYABLE_SUBSCRIPTION],
    summary="Get a subscription",
    responses=answers(SPEC, SubscriptionBody, 404),
    openapi_extra={**CALLER_STATED, **READ},
)
def get_subscription(
    sub_id: SubId, caller: CallerDep, provisioning: ProvisioningDep, base: PublicBaseUrlDep
) -> Response:
    subscription = provisioning.subscription(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND))
    return reply(render_subscription(subscription, base, caller.shown_password()))


@router.put(
    "/subs/{sub_id}",
    summary="Update a subscription",
    responses=answers(SPEC, SubscriptionBody, 403, 404, 415),
    openapi_extra=json_request_body(SubscriptionRequest, SUBSCRIPTION_MEDIA_TYPE, **WRITE),
)
def update_subscription(
    request: Request,
    sub_id: SubId,
    caller: CallerDep,
    body: RawBody,
    provisioning: ProvisioningDep,
    base: PublicBaseUrlDep,
) -> Response:
    number = parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND)
    provisioning.subscription_to_change(number, caller)
    require_content_type(request.headers.get("content-type"), SUBSCRIPTION_MEDIA_TYPE)
    fields = parse_subscription(parse_object(body), creating=False)
    subscription = provisioning.update_subscription(number, fields, caller)
    # A new password is echoed to the request that set it; one kept (the mask sent) stays masked.
    sent = fields.delivery.password
    return reply(render_subscription(subscription, base, PASSWORD_MASK if sent is None else sent))


@router.delete(
    "/subs/{sub_id}",
    summary="Delete a subscription",
    status_code=204,
    responses=answers(SPEC, None, 403, 404, status=204),
    openapi_extra={**CALLER_STATED, **WRITE},
)
def delete_subscription(sub_id: SubId, caller: CallerDep, provisioning: ProvisioningDep) -> Response:
    provisioning.delete_subscription(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND), caller)
    return reply(None, 204)


refuse_methods(router, "/subscribe/{feed_id}", ["PUT", "DELETE"], "subscribeURL")
