"""Routes of a feed's members to the nodes of their sites (spec 1.3), set through the distribution
service's internal API.

* **Egress**: a subscriber at a routed site is bound to that site's node
  (``PUT /internal/route/egress/{subId}``), which then delivers its files; elsewhere it is unbound.
* **Ingress**: a publisher at a routed site may publish only at nodes of its site
  (``PUT /internal/route/ingress/{feedId}/{username}``); its ``publishURL`` is on such a node. The
  controller owns every per-publisher route of its feeds: one it did not ask for is removed.

The distribution service's node list is asked for only when a member's site has ``/dr_nodes``;
the routes themselves are always brought in line (a site whose last node was removed loses them).
"""

from __future__ import annotations

from collections.abc import Iterable

from ....store.db import Database
from ....store.unit_of_work import UnitOfWork
from ...repository.rows import DR_NODES, RowRepository
from ...schemas import DrNode, DrPub, DrSub, Feed
from .client import DistributionClient, Rejected, Unreachable
from .sites import LiveNode, SiteNodes


class SiteRouting:
    def __init__(self, database: Database, client: DistributionClient) -> None:
        self.unit = UnitOfWork(database, RowRepository)
        self.client = client

    def registered(self) -> list[DrNode]:
        return self.unit.read(lambda nodes: nodes.list_all(DR_NODES))

    def site_nodes(self, url: str, registered: list[DrNode], sites: Iterable[str | None]) -> SiteNodes:
        """The nodes of every site; the distribution service is asked only when one of ``sites`` has nodes."""
        wanted = {site for site in sites if site}
        if not wanted & {node.svcLocationName for node in registered}:
            return SiteNodes(registered, [])
        return SiteNodes(registered, [LiveNode.parse(item) for item in self.client.nodes(url)])

    # --- egress --------------------------------------------------------------------------------

    def bind(self, url: str, sub: DrSub) -> None:
        """Bind the subscription to its site's node, or unbind it; :class:`Unreachable` with the
        reason when that fails (the subscription exists there either way: never a 400 for it)."""
        if sub.subId is None:
            return
        registered = self.registered()
        try:
            nodes = self.site_nodes(url, registered, [sub.svcLocationName])
            node = nodes.node_for(sub.svcLocationName)
            if node is None:
                self.client.delete_egress(url, sub.subId)
            else:
                self.client.set_egress(url, sub.subId, node.name)
        except (Unreachable, Rejected) as failure:
            raise Unreachable(_reason(failure)) from failure

    # --- ingress -------------------------------------------------------------------------------

    def route_publishers(self, url: str, feed: Feed, pubs: list[DrPub]) -> dict[int, str]:
        """Set each publisher's ``publishURL`` and ingress route; the reasons of those that failed,
        keyed by their index in ``pubs``."""
        for pub in pubs:
            pub.publishURL = feed.publishURL
        if feed.feedId is None:
            return {}
        registered = self.registered()
        try:
            nodes = self.site_nodes(url, registered, [pub.svcLocationName for pub in pubs])
        except (Unreachable, Rejected) as failure:
            return {index: _reason(failure) for index, pub in enumerate(pubs) if nodes_at(registered, pub)}
        failed: dict[int, str] = {}
        wanted: dict[str, list[str]] = {}
        for index, pub in enumerate(pubs):
            try:
                node = nodes.node_for(pub.svcLocationName)
            except Unreachable as failure:
                failed[index] = _reason(failure)
                continue
            if node is not None and pub.username and pub.svcLocationName:
                pub.publishURL = f"{node.url}/publish/{feed.feedId}"
                wanted[pub.username] = [pub.svcLocationName]
        try:
            self._sync_ingress(url, feed.feedId, wanted)
        except (Unreachable, Rejected) as failure:
            routed = (index for index, pub in enumerate(pubs) if pub.username in wanted)
            failed.update({index: _reason(failure) for index in routed})
        return failed

    def _sync_ingress(self, url: str, feed_id: str, wanted: dict[str, list[str]]) -> None:
        current = {
            str(route["publisher"]): route.get("sites")
            for route in self.client.ingress_routes(url, feed_id)
            if route.get("publisher")
        }
        for publisher, sites in wanted.items():
            if current.get(publisher) != sites:
                self.client.set_ingress(url, feed_id, publisher, sites)
        for publisher in current.keys() - wanted.keys():
            self.client.delete_ingress(url, feed_id, publisher)


def nodes_at(registered: list[DrNode], member: DrPub | DrSub) -> bool:
    return any(node.svcLocationName == member.svcLocationName for node in registered)


def _reason(failure: Unreachable | Rejected) -> str:
    return f"route to its site's node not set: {failure.message}"
