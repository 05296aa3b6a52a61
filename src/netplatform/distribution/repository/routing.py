"""Ingress routes (where a feed's publishers may publish) and egress routes (which node delivers a
subscription's files), as set by the bus controller through ``/internal/route/...``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from ..tables import egress_routes, ingress_routes

ANY_PUBLISHER = ""
"""The publisher column of a route that applies to every publisher of the feed."""


@dataclass(frozen=True)
class IngressRoute:
    feed_id: int
    publisher: str  # an endpoint id, or ANY_PUBLISHER
    sites: tuple[str, ...]


@dataclass(frozen=True)
class EgressRoute:
    sub_id: int
    node: str


def ingress_route_for(routes: list[IngressRoute], publisher: str) -> IngressRoute | None:
    """Of a feed's ingress routes, the one that applies to this publisher: its own, else the feed's
    any-publisher route."""
    by_publisher = {route.publisher: route for route in routes}
    return by_publisher.get(publisher) or by_publisher.get(ANY_PUBLISHER)


_INGRESS_ROUTES = sa.select(ingress_routes).order_by(ingress_routes.c.feed_id, ingress_routes.c.publisher)
# Built once: asked on every publish, where building and keying it cost more than running it.
_INGRESS_ROUTES_OF_FEED = _INGRESS_ROUTES.where(ingress_routes.c.feed_id == sa.bindparam("feed_id"))


class RouteRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def _changed(self, statement: sa.Executable) -> bool:
        """Run a DELETE or UPDATE; whether it touched a row."""
        return cast(CursorResult[Any], self.session.execute(statement)).rowcount > 0

    def set_ingress(self, route: IngressRoute) -> bool:
        """Store the route (replacing one for the same feed and publisher); True when it is new."""
        key = sa.and_(
            ingress_routes.c.feed_id == route.feed_id, ingress_routes.c.publisher == route.publisher
        )
        existed = self.session.execute(sa.select(ingress_routes.c.feed_id).where(key)).first() is not None
        if existed:
            self.session.execute(sa.update(ingress_routes).where(key).values(sites=list(route.sites)))
        else:
            self.session.execute(
                sa.insert(ingress_routes).values(
                    feed_id=route.feed_id, publisher=route.publisher, sites=list(route.sites)
                )
            )
        return not existed

    def delete_ingress(self, feed_id: int, publisher: str) -> bool:
        statement = sa.delete(ingress_routes).where(
            ingress_routes.c.feed_id == feed_id, ingress_routes.c.publisher == publisher
        )
        return self._changed(statement)

    def ingress_routes(self, feed_id: int | None = None) -> list[IngressRoute]:
        connection = self.session.connection()  # plain columns: no need for the ORM's execution path
        if feed_id is None:
            found = connection.execute(_INGRESS_ROUTES)
        else:
            found = connection.execute(_INGRESS_ROUTES_OF_FEED, {"feed_id": feed_id})
        return [
            IngressRoute(row["feed_id"], row["publisher"], tuple(row["sites"])) for row in found.mappings()
        ]

    def set_egress(self, route: EgressRoute) -> bool:
        """Bind the subscription to the node (replacing a binding); True when it is new."""
        key = egress_routes.c.sub_id == route.sub_id
        existed = self.session.execute(sa.select(egress_routes.c.sub_id).where(key)).first() is not None
        if existed:
            self.session.execute(sa.update(egress_routes).where(key).values(node=route.node))
        else:
            self.session.execute(sa.insert(egress_routes).values(sub_id=route.sub_id, node=route.node))
        return not existed

    def delete_egress(self, sub_id: int) -> bool:
        return self._changed(sa.delete(egress_routes).where(egress_routes.c.sub_id == sub_id))

    def egress_routes(self, sub_id: int | None = None) -> list[EgressRoute]:
        query = sa.select(egress_routes).order_by(egress_routes.c.sub_id)
        if sub_id is not None:
            query = query.where(egress_routes.c.sub_id == sub_id)
        return [EgressRoute(row["sub_id"], row["node"]) for row in self.session.execute(query).mappings()]
