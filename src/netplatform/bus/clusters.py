"""Message-router clusters, one per site location; a change re-matches clients and bridges.

A cluster registered or replaced is NEW until its router has every existing topic
(:mod:`.outbound.router.provisioning`), then VALID, or INVALID with the reason.
"""

from __future__ import annotations

from ..clock import wire_now
from ..store.db import Database
from ..web.errors import Conflict, NotFound
from .bridges import BridgeLimits
from .checks import require
from .clients import topology_changed
from .outbound.router.provisioning import RouterProvisioner
from .repository import rows
from .repository.locks import lock_topology
from .schemas import MrCluster, Status

DEFAULTS = {
    "topicProtocol": "https",
    "topicPort": "3905",
    "sourceReplicationPort": "2181",
    "targetReplicationPort": "9092",
}


def _not_found(cluster_id: str) -> NotFound:
    return NotFound(f"Cluster with svcLocationName {cluster_id} not found", fields="svcLocationName")


def _with_defaults(body: MrCluster, location: str) -> MrCluster:
    values = body.model_dump()
    for name, default in DEFAULTS.items():
        if values.get(name) is None:
            values[name] = default
    values.update(
        svcLocationName=location,
        status=Status.NEW.value,
        statusReason=None,
        lastVerified=None,
        lastMod=wire_now(),
    )
    return MrCluster.model_validate(values)


class Clusters:
    """Message-router clusters, keyed by their site location (topology lock held on every write)."""

    def __init__(self, db: Database, limits: BridgeLimits, routers: RouterProvisioner) -> None:
        self.db = db
        self.limits = limits
        self.routers = routers

    def all(self) -> list[MrCluster]:
        with self.db.read() as session:
            return rows.list_all(session, rows.CLUSTERS)

    def get(self, cluster_id: str) -> MrCluster:
        with self.db.read() as session:
            cluster = rows.get(session, rows.CLUSTERS, cluster_id)
        if cluster is None:
            raise _not_found(cluster_id)
        return cluster

    def create(self, body: MrCluster) -> MrCluster:
        location = require(body.svcLocationName, "svcLocationName")
        require(body.fqdn, "fqdn")
        with self.db.write() as session:
            lock_topology(session)
            cluster = _with_defaults(body, location)
            try:
                rows.insert_object(session, rows.CLUSTERS, cluster)
            except rows.Duplicate:
                raise Conflict(
                    f"Cluster with svcLocationName {location} already exists", fields="svcLocationName"
                ) from None
            topology_changed(session, self.limits, location)
        self.routers.provision_pending()
        return self.get(location)

    def replace(self, cluster_id: str, body: MrCluster) -> MrCluster:
        require(body.svcLocationName, "svcLocationName")
        with self.db.write() as session:
            lock_topology(session)
            if rows.get(session, rows.CLUSTERS, cluster_id) is None:
                raise _not_found(cluster_id)
            cluster = _with_defaults(body, cluster_id)
            rows.update_object(session, rows.CLUSTERS, cluster_id, cluster)
            topology_changed(session, self.limits, cluster_id)
        self.routers.provision_pending()
        return self.get(cluster_id)

    def delete(self, cluster_id: str) -> None:
        with self.db.write() as session:
            lock_topology(session)
            if not rows.delete_object(session, rows.CLUSTERS, cluster_id):
                raise _not_found(cluster_id)
            topology_changed(session, self.limits, cluster_id)
        self.routers.provision_pending()
