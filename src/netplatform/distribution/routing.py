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

from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import NotFound, ServiceUnavailable
from .errors import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from .nodes import NodeRegistry
from .repository import Repositories
from .repository.routing import ANY_PUBLISHER, EgressRoute, IngressRoute


class Routing:
    def __init__(self, db: Database, registry: NodeRegistry) -> None:
        self.unit = UnitOfWork(db, Repositories)
        self.registry = registry

    # --- ingress ---------------------------------------------------------------------------

    def set_ingress(self, feed_id: int, publisher: str | None, sites: list[str]) -> tuple[IngressRoute, bool]:
        """Store the route; it and whether it is new. 404 when the feed is not live."""
        route = IngressRoute(feed_id, publisher or ANY_PUBLISHER, tuple(dict.fromkeys(sites)))

        def work(repo: Repositories) -> bool:
            if repo.feeds.find(feed_id) is None:
                raise NotFound(FEED_NOT_FOUND)
            return repo.routes.set_ingress(route)

        return route, self.unit.write(work)

    def ingress(self, feed_id: int, publisher: str | None) -> IngressRoute:
        for route in self.ingress_routes(feed_id):
            if route.publisher == (publisher or ANY_PUBLISHER):
                return route
        raise NotFound("No ingress route for this feed and publisher.")

    def delete_ingress(self, feed_id: int, publisher: str | None) -> None:
        def work(repo: Repositories) -> None:
            if not repo.routes.delete_ingress(feed_id, publisher or ANY_PUBLISHER):
                raise NotFound("No ingress route for this feed and publisher.")

        self.unit.write(work, retry=False)

    def ingress_routes(self, feed_id: int | None = None) -> list[IngressRoute]:
        return self.unit.read(lambda repo: repo.routes.ingress_routes(feed_id))

    def target_of(self, route: IngressRoute | None) -> str | None:
        """None when this node may take a publish under ``route`` (the publisher's ingress route,
        None when it has none), else the base URL of a live allowed node.

        503 when the route allows only sites without a live node (the publisher tries later).
        """
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

        def work(repo: Repositories) -> bool:
            if repo.subscriptions.find(sub_id) is None:
                raise NotFound(SUBSCRIPTION_NOT_FOUND)
            if repo.nodes.find(node) is None:
                raise NotFound(f"Unknown node {node}.")
            return repo.routes.set_egress(route)

        return route, self.unit.write(work)

    def egress(self, sub_id: int) -> EgressRoute:
        routes = self.unit.read(lambda repo: repo.routes.egress_routes(sub_id))
        if not routes:
            raise NotFound("No egress route for this subscription.")
        return routes[0]

    def delete_egress(self, sub_id: int) -> None:
        def work(repo: Repositories) -> None:
            if not repo.routes.delete_egress(sub_id):
                raise NotFound("No egress route for this subscription.")

        self.unit.write(work, retry=False)

    def egress_routes(self) -> list[EgressRoute]:
        return self.unit.read(lambda repo: repo.routes.egress_routes())
