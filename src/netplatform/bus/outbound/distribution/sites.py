"""Which file-distribution node serves a site (spec 1.3: "publishers use the node local to their site").

The controller's ``/dr_nodes`` say which nodes a site has, in the order they were registered; a
node's ``fqdn`` is the ``host:port`` of the URL the node announces to the distribution service
(``NETPLATFORM_NODE_URL``), which is how the two lists meet. A site without ``/dr_nodes`` is not
routed: its subscribers are delivered by whichever node received a file, its publishers publish
at the feed's ``publishURL`` (a one-node deployment needs no ``/dr_nodes`` at all).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...schemas import DrNode
from .client import Unreachable


@dataclass(frozen=True)
class LiveNode:
    """A node as the distribution service reports it."""

    name: str
    site: str
    url: str
    fqdn: str
    up: bool

    @classmethod
    def parse(cls, item: dict[str, Any]) -> LiveNode:
        return cls(
            name=str(item.get("name", "")),
            site=str(item.get("site", "")),
            url=str(item.get("url", "")).rstrip("/"),
            fqdn=str(item.get("fqdn", "")),
            up=bool(item.get("up")),
        )


class NoNodeAtSite(Unreachable):
    """The site has ``/dr_nodes`` but none of them has registered with the distribution service."""


class SiteNodes:
    """The controller's nodes per site, matched to the nodes the distribution service knows."""

    def __init__(self, registered: Iterable[DrNode], live: Iterable[LiveNode]) -> None:
        self._fqdns: dict[str, list[str]] = {}
        for node in registered:
            if node.svcLocationName and node.fqdn:
                self._fqdns.setdefault(node.svcLocationName, []).append(node.fqdn)
        self._live = {node.fqdn: node for node in live}

    def routed(self, site: str | None) -> bool:
        """True when the site has nodes of its own (then its members are bound to them)."""
        return bool(site) and site in self._fqdns

    def node_for(self, site: str | None) -> LiveNode | None:
        """The site's first node that is up, else its first known one (files wait for it); None
        when the site is not routed. Raises :class:`NoNodeAtSite` when none is known."""
        if not site or site not in self._fqdns:
            return None
        known = [self._live[fqdn] for fqdn in self._fqdns[site] if fqdn in self._live]
        for node in known:
            if node.up:
                return node
        if known:
            return known[0]
        fqdns = ", ".join(self._fqdns[site])
        raise NoNodeAtSite(f"no file-distribution node of site {site} ({fqdns}) has registered")
