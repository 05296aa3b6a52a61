"""File-distribution nodes (``/dr_nodes``): which nodes each site has (spec 1.3).

The reference stores a node VALID without asking anyone. Here a node's status says whether it
exists and works, as the distribution service sees it at the time of the answer: VALID when a
node whose URL has this ``host:port`` (its ``fqdn``) has registered there, at this site, and is
up; otherwise INVALID with the reason. A change of a site's nodes provisions that site's feeds
again, so subscribers are bound to, and publishers routed to, the nodes the site has now.
"""

from __future__ import annotations

from ....clock import wire_now
from ....store.db import Database
from ....web.errors import Conflict, NotFound
from ...checks import require
from ...repository import rows
from ...repository.bus_settings import bus_settings
from ...schemas import DrNode, Status
from .client import Rejected, Unreachable
from .provisioning import DistributionProvisioner
from .sites import LiveNode


def _not_found(fqdn: str) -> NotFound:
    return NotFound(f"Node {fqdn} does not exist", fields="fqdn")


def _judged(node: DrNode, live: dict[str, LiveNode] | str) -> DrNode:
    """The node with its status: ``live`` is the service's nodes by fqdn, or why they are unknown."""
    if isinstance(live, str):
        reason: str | None = live
    elif (found := live.get(node.fqdn or "")) is None:
        reason = f"no file-distribution node with URL host:port {node.fqdn} has registered"
    elif found.site != node.svcLocationName:
        reason = f"node {found.name} at {found.url} is at site {found.site}, not {node.svcLocationName}"
    elif not found.up:
        reason = f"node {found.name} at {found.url} is down (no recent heartbeat)"
    else:
        reason = None
    status = Status.INVALID if reason else Status.VALID
    return node.model_copy(update={"status": status.value, "statusReason": reason})


def _fresh() -> dict[str, object]:
    return {"status": Status.NEW.value, "statusReason": None, "lastMod": wire_now()}


class DistributionNodes:
    """The controller's record of the file-distribution nodes, keyed by fqdn."""

    def __init__(self, db: Database, provisioner: DistributionProvisioner) -> None:
        self.db = db
        self.provisioner = provisioner

    def all(self) -> list[DrNode]:
        with self.db.read() as session:
            nodes = rows.list_all(session, rows.DR_NODES)
        live = self._live() if nodes else {}
        return [_judged(node, live) for node in nodes]

    def get(self, fqdn: str) -> DrNode:
        with self.db.read() as session:
            node = rows.get(session, rows.DR_NODES, fqdn)
        if node is None:
            raise _not_found(fqdn)
        return _judged(node, self._live())

    def create(self, body: DrNode) -> DrNode:
        site = require(body.svcLocationName, "svcLocationName")
        fqdn = require(body.fqdn, "fqdn")
        node = body.model_copy(update=_fresh())
        with self.db.write() as session:
            try:
                rows.insert_object(session, rows.DR_NODES, node)
            except rows.Duplicate:
                raise Conflict(f"Node {fqdn} already exists", fields="fqdn") from None
        self.provisioner.reroute({site})
        return self.get(fqdn)

    def replace(self, fqdn: str, body: DrNode) -> DrNode:
        node = body.model_copy(update={"fqdn": fqdn, **_fresh()})
        with self.db.write() as session:
            old = rows.get(session, rows.DR_NODES, fqdn, for_update=True)
            if old is None:
                raise _not_found(fqdn)
            rows.update_object(session, rows.DR_NODES, fqdn, node)
        self.provisioner.reroute({site for site in (old.svcLocationName, node.svcLocationName) if site})
        return self.get(fqdn)

    def delete(self, fqdn: str) -> None:
        with self.db.write() as session:
            old = rows.get(session, rows.DR_NODES, fqdn, for_update=True)
            if old is None or not rows.delete_object(session, rows.DR_NODES, fqdn):
                raise _not_found(fqdn)
        if old.svcLocationName:
            self.provisioner.reroute({old.svcLocationName})

    def _live(self) -> dict[str, LiveNode] | str:
        """The distribution service's nodes by fqdn, or the reason they could not be had."""
        with self.db.read() as session:
            url = bus_settings(session).drProvUrl or ""
        try:
            items = self.provisioner.client.nodes(url)
        except (Unreachable, Rejected) as failure:
            return f"cannot ask the distribution service about its nodes: {failure.message}"
        return {node.fqdn: node for node in map(LiveNode.parse, items)}
