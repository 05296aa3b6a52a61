"""HTTP routes of the file-distribution service (spec 4.2): provisioning, logs, publish."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, FastAPI, Header, Request
from fastapi.responses import JSONResponse, Response
from starlette.requests import ClientDisconnect

from ..settings import Settings
from ..web.app import build_app
from ..web.auth import PUBLIC, parse_basic
from ..web.errors import BadRequest, MethodNotAllowed
from ..web.requestid import current_request_id
from ..web.routes import STREAMED_BODY
from ..web.service import ServiceSpec
from . import logbook
from ._http import (
    FEED_MEDIA_TYPE,
    LOG_LIST_CONTENT_TYPE,
    LOG_LIST_MEDIA_TYPE,
    SUBSCRIPTION_MEDIA_TYPE,
    errors,
    inline_schema,
    json_request_body,
    parse_object_id,
    provisioning_caller,
    public_base_url,
    raw_body,
    require_content_type,
    require_log_list_acceptable,
)
from .access import Caller
from .clock import now_ms
from .delivery import DeliveryEngine
from .documents import parse_object
from .errors import ERROR_MEDIA_TYPE, render_error
from .feeds import parse_feed
from .forwarding import CONTENT_TYPE, META_HEADER, PUBLISH_ID_HEADER, captured_headers
from .logquery import parse_log_query
from .metrics import DeliveryMetrics
from .provisioning import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND, Provisioning
from .publishing import Arrival, Publisher
from .schemas import (
    FeedBody,
    FeedRequest,
    LogRecordBody,
    SubscriptionBody,
    SubscriptionRequest,
    render_feed,
    render_subscription,
)
from .spool import spool
from .subscriptions import parse_subscription

log = logging.getLogger("netplatform.distribution")

SPEC = ServiceSpec(
    name="distribution",
    title="netplatform file distribution",
    version="1.0.0",
    render_error=render_error,
    error_media_type=ERROR_MEDIA_TYPE,
)

CallerDep = Annotated[Caller, Depends(provisioning_caller)]
BodyDep = Annotated[bytes, Depends(raw_body)]


def _provisioning(request: Request) -> Provisioning:
    provisioning: Provisioning = request.app.state.provisioning
    return provisioning


ProvisioningDep = Annotated[Provisioning, Depends(_provisioning)]


def _base(request: Request) -> str:
    return public_base_url(request, request.app.state.settings.distribution_public_url)


def _refuse(router: APIRouter, path: str, methods: list[str], url_name: str) -> None:
    """Answer 405 with the reference's text for methods a resource does not support."""

    def refuse(request: Request) -> Response:
        raise MethodNotAllowed(f"{request.method} not allowed for the {url_name}.")

    router.add_api_route(path, refuse, methods=methods, include_in_schema=False)


# --- feeds -----------------------------------------------------------------------------------

feeds = APIRouter(prefix="", tags=["feeds"])


@feeds.post(
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
    rendered = render_feed(feed, _base(request))
    return JSONResponse(rendered, headers={"Location": rendered["links"]["self"]})


@feeds.get("/feed/{feed_id}", summary="Get a feed", responses={200: {"model": FeedBody}, **errors(404)})
def get_feed(request: Request, feed_id: str, caller: CallerDep, provisioning: ProvisioningDep) -> Response:
    feed = provisioning.feed(parse_object_id(feed_id, FEED_NOT_FOUND))
    return JSONResponse(render_feed(feed, _base(request)))


@feeds.put(
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
    return JSONResponse(render_feed(feed, _base(request)))


@feeds.delete("/feed/{feed_id}", summary="Delete a feed", status_code=204, responses=errors(403, 404))
def delete_feed(feed_id: str, caller: CallerDep, provisioning: ProvisioningDep) -> Response:
    provisioning.delete_feed(parse_object_id(feed_id, FEED_NOT_FOUND), caller)
    return Response(status_code=204)


_refuse(feeds, "/", ["PUT", "DELETE"], "drFeedsURL")
_refuse(feeds, "/feed/{feed_id}", ["POST"], "feedURL")


# --- subscriptions ---------------------------------------------------------------------------

subscriptions = APIRouter(prefix="", tags=["subscriptions"])


@subscriptions.post(
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
    rendered = render_subscription(subscription, _base(request))
    return JSONResponse(rendered, status_code=201, headers={"Location": rendered["links"]["self"]})


@subscriptions.get(
    "/subs/{sub_id}",
    summary="Get a subscription",
    responses={200: {"model": SubscriptionBody}, **errors(404)},
)
def get_subscription(
    request: Request, sub_id: str, caller: CallerDep, provisioning: ProvisioningDep
) -> Response:
    subscription = provisioning.subscription(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND))
    return JSONResponse(render_subscription(subscription, _base(request)))


@subscriptions.put(
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
    return JSONResponse(render_subscription(subscription, _base(request)))


@subscriptions.delete(
    "/subs/{sub_id}", summary="Delete a subscription", status_code=204, responses=errors(403, 404)
)
def delete_subscription(sub_id: str, caller: CallerDep, provisioning: ProvisioningDep) -> Response:
    provisioning.delete_subscription(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND), caller)
    return Response(status_code=204)


_refuse(subscriptions, "/subscribe/{feed_id}", ["PUT", "DELETE"], "subscribeURL")


# --- logs ------------------------------------------------------------------------------------

log_lists = APIRouter(prefix="", tags=["logs"])

_LOG_LIST_RESPONSE = {
    200: {
        "description": "Log records, oldest first",
        "content": {
            LOG_LIST_MEDIA_TYPE: {"schema": {"type": "array", "items": inline_schema(LogRecordBody)}}
        },
    },
    **errors(406),
}


def _log_response(records: list[logbook.LogRecord]) -> Response:
    return JSONResponse([record.wire() for record in records], media_type=LOG_LIST_CONTENT_TYPE)


@log_lists.get("/feedlog/{feed_id}", summary="Log records of a feed", responses=_LOG_LIST_RESPONSE)
def feed_log(
    request: Request,
    feed_id: str,
    type: str | None = None,
    publishId: str | None = None,
    start: str | None = None,
    end: str | None = None,
    statusCode: str | None = None,
    expiryReason: str | None = None,
    filename: str | None = None,
) -> Response:
    require_log_list_acceptable(request)
    number = parse_object_id(feed_id, FEED_NOT_FOUND)
    query = parse_log_query(request.query_params, now_ms(), by_file_name=True)
    return _log_response(logbook.feed_log(request.app.state.db, number, query))


@log_lists.get("/sublog/{sub_id}", summary="Log records of a subscription", responses=_LOG_LIST_RESPONSE)
def subscription_log(
    request: Request,
    sub_id: str,
    type: str | None = None,
    publishId: str | None = None,
    start: str | None = None,
    end: str | None = None,
    statusCode: str | None = None,
    expiryReason: str | None = None,
) -> Response:
    require_log_list_acceptable(request)
    number = parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND)
    query = parse_log_query(request.query_params, now_ms(), by_file_name=False)
    return _log_response(logbook.subscription_log(request.app.state.db, number, query))


_refuse(log_lists, "/feedlog/{feed_id}", ["PUT", "POST", "DELETE"], "logURL")
_refuse(log_lists, "/sublog/{sub_id}", ["PUT", "POST", "DELETE"], "logURL")


# --- publish and retract ---------------------------------------------------------------------

publishing = APIRouter(prefix="/publish", tags=["publish"])

_PUBLISH_RESPONSES: dict[int | str, dict[str, Any]] = {
    204: {
        "description": "Accepted: stored durably and queued for every subscription",
        "headers": {
            PUBLISH_ID_HEADER: {"description": "<epoch ms>.<instance>", "schema": {"type": "string"}}
        },
    },
    **errors(401, 403, 404),
}
_FILE_BODY = {
    "requestBody": {
        "required": False,
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    }
}
MetaHeader = Annotated[
    str | None, Header(alias=META_HEADER, description="A flat JSON object of at most 4096 characters")
]


@publishing.put(
    "/{feed_id}/{file_id:path}",
    summary="Publish a file (Basic credentials of one of the feed's endpoint_ids)",
    status_code=204,
    responses=_PUBLISH_RESPONSES,
    openapi_extra={**PUBLIC, **STREAMED_BODY, **_FILE_BODY},
)
async def publish_file(request: Request, feed_id: str, file_id: str, meta: MetaHeader = None) -> Response:
    return await _accept_publish(request, feed_id, file_id, "PUT")


@publishing.delete(
    "/{feed_id}/{file_id:path}",
    summary="Retract a published file",
    status_code=204,
    responses=_PUBLISH_RESPONSES,
    openapi_extra=PUBLIC,
)
async def retract_file(request: Request, feed_id: str, file_id: str, meta: MetaHeader = None) -> Response:
    return await _accept_publish(request, feed_id, file_id, "DELETE")


@publishing.api_route("/{feed_id}", methods=["PUT", "DELETE"], include_in_schema=False, openapi_extra=PUBLIC)
async def publish_without_file_id(request: Request, feed_id: str) -> Response:
    return await _accept_publish(request, feed_id, "", request.method)


async def _accept_publish(request: Request, feed_id: str, file_id: str, method: str) -> Response:
    publisher: Publisher = request.app.state.publisher
    source_ip = request.client.host if request.client else ""
    admission = await anyio.to_thread.run_sync(
        publisher.admit,
        feed_id,
        file_id,
        parse_basic(request.headers.get("authorization")),
        source_ip,
        request.headers.get(META_HEADER),
    )
    arrival = await _receive(request, method, source_ip)
    try:
        publish_id, blob_needed = await anyio.to_thread.run_sync(publisher.accept, admission, arrival)
    except BaseException:
        _discard(request, arrival.blob)
        raise
    if not blob_needed:
        _discard(request, arrival.blob)
    request.app.state.delivery.wake()
    request.app.state.delivery_metrics.published.labels(method).inc()
    return Response(status_code=204, headers={PUBLISH_ID_HEADER: publish_id})


async def _receive(request: Request, method: str, source_ip: str) -> Arrival:
    """The body spooled to a durable blob (PUT) and the headers that travel with it."""
    received_ms = now_ms()
    has_body = method == "PUT"
    blob = None
    length = 0
    if has_body:
        try:
            stored = await spool(request.app.state.blobs, request.stream())
        except ClientDisconnect:
            log.warning("publish to %s: the body was not received completely", request.url.path)
            raise BadRequest("Request body was not received completely") from None
        blob, length = stored.name, stored.size
    server = request.scope.get("server") or ("", 0)
    headers = captured_headers(
        request.headers.items(),
        request_id=current_request_id(request),
        source_ip=source_ip,
        local_ip=str(server[0]),
        received_ms=received_ms,
        with_content=has_body,
    )
    return Arrival(
        method=method,
        request_uri=str(request.url),
        content_type=headers.get(CONTENT_TYPE),
        content_length=length,
        blob=blob,
        headers=headers,
    )


def _discard(request: Request, blob: str | None) -> None:
    if blob is not None:
        request.app.state.blobs.delete(blob)


# --- the app ---------------------------------------------------------------------------------


@asynccontextmanager
async def _run_delivery(app: FastAPI) -> AsyncIterator[None]:
    engine: DeliveryEngine = app.state.delivery
    await engine.start()
    try:
        yield
    finally:
        await engine.stop()


def create_app(settings: Settings) -> FastAPI:
    app = build_app(
        SPEC, settings, routers=[feeds, subscriptions, log_lists, publishing], lifespan=_run_delivery
    )
    state = app.state
    state.provisioning = Provisioning(state.db, state.blobs, settings)
    state.publisher = Publisher(state.db, settings.instance_name)
    state.delivery_metrics = DeliveryMetrics(state.metrics.registry, state.db)
    state.delivery = DeliveryEngine(state.db, state.blobs, settings, state.delivery_metrics)
    return app
