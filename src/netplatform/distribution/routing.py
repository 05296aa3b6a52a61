"""Routing between the nodes of the sites (spec 1.3): ingress and egress routes.

*Ingress*: a route for a feed and one of its publishers (or every publisher) names the sites
whose nodes may take that publisher's files; a publish arriving at a node of another site is
redirected to a live node of an allowed site. A feed or publisher without a route may publish
at any node. Routes name sites rather than nodes because the bus controller knows a publisher's
site (its ``svcLocationName``) and nodes of a site come and go.

*Egress*: a subscription bound to a node is delivered by that node only; the nodes that receive
its files forward them there (see :mod:`.delivery`). Unbound subscriptions are delivered by the
receiving node.
"""

from __future__ import annotations

import random

from sqlalchemy.orm import Session

from ..store.db import Database
from ..store.retry import write_with_retry
from ..web.errors import NotFound, ServiceUnavailable
from .errors import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from .nodes import NodeRegistry
from .repository import routing as route_rows
from .repository.feeds import find_feed
from .repository.nodes import find_node
from .repository.routing import ANY_PUBLISHER, EgressRoute, IngressRoute
from .repository.subscriptions import find_subscription


class Routing:
    def __init__(self, db: Database, registry: NodeRegistry) -> None:
        self.db = db
        self.registry = registry

    # --- ingress ---------------------------------------------------------------------------

    def set_ingress(self, feed_id: int, publisher: str | None, sites: list[str]) -> tuple[IngressRoute, bool]:
        """Store the route; it and whether it is new. 404 when the feed is not live."""
        route = IngressRoute(feed_id, publisher or ANY_PUBLISHER, tuple(dict.fromkeys(sites)))

        def work(session: Session) -> bool:
            if find_feed(session, feed_id) is None:
                raise NotFound(FEED_NOT_FOUND)
            return route_rows.set_ingress(session, route)

        return route, write_with_retry(self.db, work)

    def ingress(self, feed_id: int, publisher: str | None) -> IngressRoute:
        with self.db.read() as session:
            for route in route_rows.ingress_routes_of(session, feed_id):
                if route.publisher == (publisher or ANY_PUBLISHER):
                    return route
        raise NotFound("No ingress route for this feed and publisher.")

    def delete_ingress(self, feed_id: int, publisher: str | None) -> None:
        with self.db.write() as session:
            if not route_rows.delete_ingress(session, feed_id, publisher or ANY_PUBLISHER):
                raise NotFound("No ingress route for this feed and publisher.")

    def ingress_routes(self, feed_id: int | None = None) -> list[IngressRoute]:
        with self.db.read() as session:
            return route_rows.ingress_routes_of(session, feed_id)

    def ingress_target(self, feed_id: int, publisher: str) -> str | None:
        """None when this node may take the publish, else the base URL of a live allowed node.

        503 when the route allows only sites without a live node (the publisher tries later).
        """
        with self.db.read() as session:
            route = route_rows.ingress_for(session, feed_id, publisher)
        if route is None or self.registry.site in route.sites:
            return None
        live = [
            view.record.url for view in self.registry.nodes() if view.up and view.record.site in route.sites
        ]
        if not live:
            raise ServiceUnavailable(
                "No node of the sites this publisher may publish at is available.",
                headers={"Retry-After": "30"},
            )
        return random.choice(live)  # spreads publishers over the nodes of their site

    # --- egress ----------------------------------------------------------------------------

    def set_egress(self, sub_id: int, node: str) -> tuple[EgressRoute, bool]:
        """Bind the subscription to a registered node; the route and whether it is new."""
        route = EgressRoute(sub_id, node)

        def work(session: Session) -> bool:
            if find_subscription(session, sub_id) is None:
                raise NotFound(SUBSCRIPTION_NOT_FOUND)
            if find_node(session, node) is None:
                raise NotFound(f"Unknown node {node}.")
            return route_rows.set_egress(session, route)

        return route, write_with_retry(self.db, work)

    def egress(self, sub_id: int) -> EgressRoute:
        with self.db.read() as session:
            routes = route_rows.egress_routes_of(session, sub_id)
        if not routes:
            raise NotFound("No egress route for this subscription.")
        return routes[0]

    def delete_egress(self, sub_id: int) -> None:
        with self.db.write() as session:
            if not route_rows.delete_egress(session, sub_id):
                raise NotFound("No egress route for this subscription.")

    def egress_routes(self) -> list[EgressRoute]:
        with self.db.read() as session:
            return route_rows.egress_routes_of(session)
