"""The internal routing API the bus controller sets routes with (spec 1.3):
``/internal/route/ingress`` (where a feed's publishers may publish) and ``/internal/route/egress``
(which node delivers a subscription's files). Internal: ``platform.node`` (the bus controller's
identity needs it too)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from ...web.answers import reply
from ...web.errors import BadRequest
from ...web.openapi import answers
from ...web.permissions import requires
from ...web.text import is_storable
from ..deps import RoutingDep
from ..errors import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from ..repository.routing import ANY_PUBLISHER, EgressRoute, IngressRoute
from ..routing import Routing
from ..schemas import EgressRouteBody, EgressRouteRequest, IngressRouteBody, IngressRouteRequest
from ..spec import PERMISSIONS, SPEC
from ._common import ID_PATTERN, FeedId, SubId, parse_object_id

router = APIRouter(prefix="/internal/route", tags=["routes"])

# Internal like every /internal route: platform.node (and platform.admin) only.
_CALL = requires(PERMISSIONS.internal("route"))

MAX_PUBLISHER_LENGTH = 20  # an endpoint id (reference 3.1)
Publisher = Annotated[
    str,
    Path(
        description=f"An endpoint id (1-{MAX_PUBLISHER_LENGTH} characters, no NUL)",
        # Documented only: parse_publisher checks it (with its own 400 text).
        json_schema_extra={"pattern": f"^[^\\x00]{{1,{MAX_PUBLISHER_LENGTH}}}$"},
    ),
]


def ingress_body(route: IngressRoute) -> IngressRouteBody:
    publisher = None if route.publisher == ANY_PUBLISHER else route.publisher
    return IngressRouteBody(feedId=route.feed_id, publisher=publisher, sites=list(route.sites))


def egress_body(route: EgressRoute) -> EgressRouteBody:
    return EgressRouteBody(subId=route.sub_id, node=route.node)


def parse_publisher(text: str) -> str:
    """An endpoint id from the path (1 to 20 characters)."""
    if not text or len(text) > MAX_PUBLISHER_LENGTH or not is_storable(text):
        raise BadRequest("Invalid publisher.")
    return text


# --- ingress -------------------------------------------------------------------------------


@router.get(
    "/ingress",
    summary="List ingress routes",
    responses=answers(SPEC, list[IngressRouteBody]),
    openapi_extra=_CALL,
)
def list_ingress(
    routing: RoutingDep,
    feed_id: Annotated[
        str | None,
        Query(alias="feedId", description="Only this feed's", json_schema_extra={"pattern": ID_PATTERN}),
    ] = None,
) -> Response:
    number = None if feed_id is None else parse_object_id(feed_id, FEED_NOT_FOUND)
    return reply([ingress_body(route) for route in routing.ingress_routes(number)])


_ROUTE_RESPONSES = answers(SPEC, IngressRouteBody, 404)
_DELETE_RESPONSES = answers(SPEC, None, 404, status=204)


@router.put(
    "/ingress/{feed_id}",
    summary="Set the sites every publisher of the feed may publish at",
    responses=_ROUTE_RESPONSES,
    openapi_extra=_CALL,
)
def put_feed_ingress(feed_id: FeedId, body: IngressRouteRequest, routing: RoutingDep) -> Response:
    return _put_ingress(routing, feed_id, None, body)


@router.put(
    "/ingress/{feed_id}/{publisher}",
    summary="Set the sites one publisher (endpoint id) of the feed may publish at",
    responses=_ROUTE_RESPONSES,
    openapi_extra=_CALL,
)
def put_publisher_ingress(
    feed_id: FeedId, publisher: Publisher, body: IngressRouteRequest, routing: RoutingDep
) -> Response:
    return _put_ingress(routing, feed_id, parse_publisher(publisher), body)


@router.get(
    "/ingress/{feed_id}",
    summary="Get the feed's route for every publisher",
    responses=_ROUTE_RESPONSES,
    openapi_extra=_CALL,
)
def get_feed_ingress(feed_id: FeedId, routing: RoutingDep) -> Response:
    route = routing.ingress(parse_object_id(feed_id, FEED_NOT_FOUND), None)
    return reply(ingress_body(route))


@router.get(
    "/ingress/{feed_id}/{publisher}",
    summary="Get one publisher's route",
    responses=_ROUTE_RESPONSES,
    openapi_extra=_CALL,
)
def get_publisher_ingress(feed_id: FeedId, publisher: Publisher, routing: RoutingDep) -> Response:
    route = routing.ingress(parse_object_id(feed_id, FEED_NOT_FOUND), parse_publisher(publisher))
    return reply(ingress_body(route))


@router.delete(
    "/ingress/{feed_id}",
    summary="Remove the feed's route for every publisher",
    status_code=204,
    responses=_DELETE_RESPONSES,
    openapi_extra=_CALL,
)
def delete_feed_ingress(feed_id: FeedId, routing: RoutingDep) -> Response:
    routing.delete_ingress(parse_object_id(feed_id, FEED_NOT_FOUND), None)
    return reply(None, 204)


@router.delete(
    "/ingress/{feed_id}/{publisher}",
    summary="Remove one publisher's route",
    status_code=204,
    responses=_DELETE_RESPONSES,
    openapi_extra=_CALL,
)
def delete_publisher_ingress(feed_id: FeedId, publisher: Publisher, routing: RoutingDep) -> Response:
    routing.delete_ingress(parse_object_id(feed_id, FEED_NOT_FOUND), parse_publisher(publisher))
    return reply(None, 204)


def _put_ingress(
    routing: Routing, feed_id: str, publisher: str | None, body: IngressRouteRequest
) -> Response:
    number = parse_object_id(feed_id, FEED_NOT_FOUND)
    route, _created = routing.set_ingress(number, publisher, list(body.sites))
    return reply(ingress_body(route))


# --- egress --------------------------------------------------------------------------------


@router.get(
    "/egress",
    summary="List egress routes",
    responses=answers(SPEC, list[EgressRouteBody]),
    openapi_extra=_CALL,
)
def list_egress(routing: RoutingDep) -> Response:
    return reply([egress_body(route) for route in routing.egress_routes()])


@router.put(
    "/egress/{sub_id}",
    summary="Bind a subscription to the node that delivers its files",
    responses=answers(SPEC, EgressRouteBody, 404),
    openapi_extra=_CALL,
)
def put_egress(sub_id: SubId, body: EgressRouteRequest, routing: RoutingDep) -> Response:
    route, _created = routing.set_egress(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND), body.node)
    return reply(egress_body(route))


@router.get(
    "/egress/{sub_id}",
    summary="Get the node a subscription is bound to",
    responses=answers(SPEC, EgressRouteBody, 404),
    openapi_extra=_CALL,
)
def get_egress(sub_id: SubId, routing: RoutingDep) -> Response:
    return reply(egress_body(routing.egress(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND))))


@router.delete(
    "/egress/{sub_id}",
    summary="Unbind a subscription (the receiving nodes deliver it again)",
    status_code=204,
    responses=_DELETE_RESPONSES,
    openapi_extra=_CALL,
)
def delete_egress(sub_id: SubId, routing: RoutingDep) -> Response:
    routing.delete_egress(parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND))
    return reply(None, 204)
