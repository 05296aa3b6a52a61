"""Replication cases of a topic: the default case and the global URL rule (reference 6.3)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..web.errors import BadRequest
from .schemas import MrClient, ReplicationCase, SvcLocation

R = ReplicationCase

GLOBAL_CASES = frozenset(
    case.value
    for case in (
        R.REPLICATION_CENTRAL_TO_GLOBAL,
        R.REPLICATION_GLOBAL_TO_CENTRAL,
        R.REPLICATION_EDGE_TO_CENTRAL_TO_GLOBAL,
        R.REPLICATION_GLOBAL_TO_CENTRAL_TO_EDGE,
        R.REPLICATION_EDGE_TO_FQDN_TO_GLOBAL,
        R.REPLICATION_GLOBAL_TO_FQDN_TO_EDGE,
        R.REPLICATION_FQDN_TO_GLOBAL,
        R.REPLICATION_GLOBAL_TO_FQDN,
    )
)

_FQDN = re.compile(
    r"^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]*[a-zA-Z0-9])\.)*"
    r"([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9])$"
)


def is_view_only(client: MrClient) -> bool:
    """A client that only views moves no messages, so it never asks for a bridge."""
    return not {"pub", "sub"} & set(client.action or ())


def is_unspecified(case: str | None) -> bool:
    return case in (None, R.REPLICATION_NOT_SPECIFIED.value)


def default_case(
    clients: Iterable[MrClient], locations: Mapping[str, SvcLocation], cluster_locations: Iterable[str]
) -> str:
    """EDGE_TO_CENTRAL when the clients sit at a central location and elsewhere; else NONE."""
    clients = list(clients)
    if len(clients) <= 1:
        return R.REPLICATION_NONE.value
    places = [
        client.svcLocationName
        for client in clients
        if client.svcLocationName is not None
        and not is_view_only(client)
        and client.svcLocationName in locations
    ]
    central = next((place for place in places if locations[place].central), None)
    with_cluster = set(cluster_locations)
    if central is not None and any(place != central and place in with_cluster for place in places):
        return R.REPLICATION_EDGE_TO_CENTRAL.value
    return R.REPLICATION_NONE.value


def global_url(case: str, given: str | None, default_host: str) -> str | None:
    """For a case that involves the global cluster: the given (or default) host, which must be an FQDN."""
    if case not in GLOBAL_CASES:
        return given
    url = given if given else default_host
    if not _FQDN.match(url):
        raise BadRequest(f"Value is not a valid FQDN:{url}", fields="globalMrURL")
    return url
