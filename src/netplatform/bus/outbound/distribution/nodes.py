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
from ....store.unit_of_work import UnitOfWork
from ....web.errors import Conflict, NotFound
from ...checks import require
from ...repository.rows import DR_NODES, Duplicate, RowRepository
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
        self.unit = UnitOfWork(db, RowRepository)
        self.provisioner = provisioner

    def all(self) -> list[DrNode]:
        nodes = self.unit.read(lambda repo: repo.list_all(DR_NODES))
        live = self._live() if nodes else {}
        return [_judged(node, live) for node in nodes]

    def get(self, fqdn: str) -> DrNode:
        node = self.unit.read(lambda repo: repo.get(DR_NODES, fqdn))
        if node is None:
            raise _not_found(fqdn)
        return _judged(node, self._live())

    def create(self, body: DrNode) -> DrNode:
        site = require(body.svcLocationName, "svcLocationName")
        fqdn = require(body.fqdn, "fqdn")
        node = body.model_copy(update=_fresh())
        try:
            self.unit.write(lambda repo: repo.insert(DR_NODES, node), retry=False)
        except Duplicate:
            raise Conflict(f"Node {fqdn} already exists", fields="fqdn") from None
        self.provisioner.reroute({site})
        return self.get(fqdn)

    def replace(self, fqdn: str, body: DrNode) -> DrNode:
        node = body.model_copy(update={"fqdn": fqdn, **_fresh()})

        def replace(repo: RowRepository) -> DrNode:
            old = repo.get(DR_NODES, fqdn, for_update=True)
            if old is None:
                raise _not_found(fqdn)
            repo.update(DR_NODES, fqdn, node)
            return old

        old = self.unit.write(replace, retry=False)
        self.provisioner.reroute({site for site in (old.svcLocationName, node.svcLocationName) if site})
        return self.get(fqdn)

    def delete(self, fqdn: str) -> None:
        def delete(repo: RowRepository) -> DrNode:
            old = repo.get(DR_NODES, fqdn, for_update=True)
            if old is None or not repo.delete(DR_NODES, fqdn):
                raise _not_found(fqdn)
            return old

        old = self.unit.write(delete, retry=False)
        if old.svcLocationName:
            self.provisioner.reroute({old.svcLocationName})

    def _live(self) -> dict[str, LiveNode] | str:
        """The distribution service's nodes by fqdn, or the reason they could not be had."""
        url = self.provisioner.url()
        try:
            items = self.provisioner.client.nodes(url)
        except (Unreachable, Rejected) as failure:
            return f"cannot ask the distribution service about its nodes: {failure.message}"
        return {node.fqdn: node for node in map(LiveNode.parse, items)}
