"""Message-router clusters, one per site location; a change re-matches clients and bridges.

A cluster registered or replaced is NEW until its router has every existing topic
(:mod:`.outbound.router.provisioning`), then VALID, or INVALID with the reason. Every other
cluster's router learns the registered routers at once, the only sources its mirror agents may
connect to. Only an administrator registers, changes or deletes a cluster (the bus sends its own
credential to the cluster's router).
"""

from __future__ import annotations

from ..clock import wire_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import Conflict, NotFound
from .bridges import BridgeLimits
from .checks import require
from .clients import topology_changed
from .outbound.router.provisioning import RouterProvisioner
from .repository.rows import CLUSTERS, Duplicate
from .repository.topology import TopologyRepository
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
        self.unit = UnitOfWork(db, TopologyRepository)
        self.limits = limits
        self.routers = routers

    def all(self) -> list[MrCluster]:
        return self.unit.read(lambda repo: repo.list_all(CLUSTERS))

    def get(self, cluster_id: str) -> MrCluster:
        cluster = self.unit.read(lambda repo: repo.get(CLUSTERS, cluster_id))
        if cluster is None:
            raise _not_found(cluster_id)
        return cluster

    def create(self, body: MrCluster) -> MrCluster:
        location = require(body.svcLocationName, "svcLocationName")
        require(body.fqdn, "fqdn")

        def create(repo: TopologyRepository) -> None:
            repo.lock_topology()
            cluster = _with_defaults(body, location)
            try:
                repo.insert(CLUSTERS, cluster)
            except Duplicate:
                raise Conflict(
                    f"Cluster with svcLocationName {location} already exists", fields="svcLocationName"
                ) from None
            topology_changed(repo, self.limits, location)

        self.unit.write(create, retry=False)
        self.routers.provision_pending()
        self.routers.tell_sources(except_location=location)
        return self.get(location)

    def replace(self, cluster_id: str, body: MrCluster) -> MrCluster:
        require(body.svcLocationName, "svcLocationName")

        def replace(repo: TopologyRepository) -> None:
            repo.lock_topology()
            if repo.get(CLUSTERS, cluster_id) is None:
                raise _not_found(cluster_id)
            cluster = _with_defaults(body, cluster_id)
            repo.update(CLUSTERS, cluster_id, cluster)
            topology_changed(repo, self.limits, cluster_id)

        self.unit.write(replace, retry=False)
        self.routers.provision_pending()
        self.routers.tell_sources(except_location=cluster_id)
        return self.get(cluster_id)

    def delete(self, cluster_id: str) -> None:
        def delete(repo: TopologyRepository) -> None:
            repo.lock_topology()
            if not repo.delete(CLUSTERS, cluster_id):
                raise _not_found(cluster_id)
            topology_changed(repo, self.limits, cluster_id)

        self.unit.write(delete, retry=False)
        self.routers.provision_pending()
        self.routers.tell_sources()
