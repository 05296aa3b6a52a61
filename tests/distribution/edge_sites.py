"""Distribution nodes on their own stores (issue 38) for the tests: a central site running authz
and distribution on the test database, edge nodes on SQLite following it (its provisioning at
the distribution URL that ``NETPLATFORM_CENTRAL_URL`` gives), started with
tests/support/sites.py."""

from __future__ import annotations

from typing import Any

import httpx

from netplatform.access.platform import NODE, credential
from netplatform.settings import Settings

from ..support.keys import TEST_SECRET_KEY
from ..support.sites import Site, SiteLauncher
from ..support.tls import TlsFiles
from ..support.waiting import wait_until
from .conftest import FAST_DELIVERY

CENTRAL_SERVICES = ("authz", "distribution")
EDGE_SERVICES = ("distribution",)


def node_env(tls: TlsFiles, **extra: str) -> dict[str, str]:
    """What every node of these tests has: fast delivery, fast heartbeats."""
    return {
        "NETPLATFORM_DELIVERY_CA_BUNDLE": str(tls.ca_bundle),
        "NETPLATFORM_NODE_HEARTBEAT_S": "0.3",
        "NETPLATFORM_NODE_DOWN_AFTER_S": "3",
        "NETPLATFORM_DISTRIBUTION_LOG_SHIP_S": "0.3",
        **{f"NETPLATFORM_{key.upper()}": str(value) for key, value in FAST_DELIVERY.items()},
        **extra,
    }


def start_central(sites: SiteLauncher, tls: TlsFiles) -> Site:
    return sites.central(CENTRAL_SERVICES, env=node_env(tls))


def start_edge(sites: SiteLauncher, central: Site, name: str, tls: TlsFiles) -> Site:
    """An edge distribution node following ``central``'s provisioning and its authz, given
    central's URL alone (docs/operations.md "Sites")."""
    return sites.edge(name, EDGE_SERVICES, env=node_env(tls), central=central)


def node_credentials() -> tuple[str, str]:
    """``svc.node`` with the password every site holding the tests' platform key derives."""
    return credential(Settings(secret_key=TEST_SECRET_KEY), NODE)


def knows(site: Site, path: str, **headers: str) -> bool:
    """Whether ``GET path`` answers 200 at the site's distribution service."""
    with site.client("distribution") as http:
        return http.get(path, headers=headers).status_code == 200


def wait_known(site: Site, path: str, what: str, **headers: str) -> None:
    wait_until(lambda: knows(site, path, **headers), 30, f"{what} at {site.name}")


def wait_node_known(site: Site, node: str) -> None:
    wait_known(site, f"/internal/nodes/{node}", f"node {node}")


def records(site: Site, path: str, **params: str) -> list[dict[str, Any]]:
    with site.client("distribution") as http:
        answer = http.get(path, params=params)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def bind(central: Site, sub_id: int, node: str) -> None:
    """The egress route of ``sub_id`` to ``node``, set at central."""
    with central.client("distribution") as http:
        bound = http.put(f"/internal/route/egress/{sub_id}", json={"node": node})
    assert bound.status_code == 200, bound.text


def egress_known(site: Site, sub_id: int, node: str) -> bool:
    with site.client("distribution") as http:
        answer = http.get(f"/internal/route/egress/{sub_id}")
    return answer.status_code == 200 and answer.json().get("node") == node


def central_http(central: Site) -> httpx.Client:
    return central.client("distribution", auth=node_credentials())
