"""Message-router clusters, one per site location; a change re-matches clients and bridges."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..clock import wire_now
from ..settings import Settings
from ..web.errors import Conflict, NotFound
from . import repository as repo
from .checks import require
from .clients import topology_changed
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
    values.update(svcLocationName=location, status=Status.VALID.value, lastMod=wire_now())
    return MrCluster.model_validate(values)


def list_clusters(session: Session) -> list[MrCluster]:
    return repo.list_all(session, repo.CLUSTERS)


def get(session: Session, cluster_id: str) -> MrCluster:
    cluster = repo.get(session, repo.CLUSTERS, cluster_id)
    if cluster is None:
        raise _not_found(cluster_id)
    return cluster


def create(session: Session, settings: Settings, body: MrCluster) -> MrCluster:
    location = require(body.svcLocationName, "svcLocationName")
    require(body.fqdn, "fqdn")
    repo.bus_settings(session, for_update=True)
    cluster = _with_defaults(body, location)
    try:
        repo.insert_object(session, repo.CLUSTERS, cluster)
    except repo.Duplicate:
        raise Conflict(
            f"Cluster with svcLocationName {location} already exists", fields="svcLocationName"
        ) from None
    topology_changed(session, settings, location)
    return cluster


def replace(session: Session, settings: Settings, cluster_id: str, body: MrCluster) -> MrCluster:
    require(body.svcLocationName, "svcLocationName")
    repo.bus_settings(session, for_update=True)
    get(session, cluster_id)
    cluster = _with_defaults(body, cluster_id)
    repo.update_object(session, repo.CLUSTERS, cluster_id, cluster)
    topology_changed(session, settings, cluster_id)
    return cluster


def delete(session: Session, settings: Settings, cluster_id: str) -> None:
    repo.bus_settings(session, for_update=True)
    if not repo.delete_object(session, repo.CLUSTERS, cluster_id):
        raise _not_found(cluster_id)
    topology_changed(session, settings, cluster_id)
