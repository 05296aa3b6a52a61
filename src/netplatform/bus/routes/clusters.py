"""Message-router clusters (``/mr_clusters``), keyed by their site location.

Registering, replacing and deleting one needs ``platform.bus.admin|mr_clusters|write``, which only
administrators hold (bus.writer does not): a cluster's URL is where the bus presents its own
credential and where mirror agents may connect (issue 36, point 1)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import ClustersDep
from ..request_schemas import REQUIRED_BODY, MrClusterReplacement, MrClusterRequest
from ..schemas import MrCluster
from ..spec import PERMISSIONS, SPEC
from ._common import DELETE_DONE, new_router

router = new_router("/mr_clusters", "message-router clusters")
ADMINISTER = PERMISSIONS.admin("mr_clusters")
"""A cluster is where the bus sends its own credential (its router's URL): administrators only."""


@router.post(
    "",
    summary="Create a message-router cluster",
    responses=answers(SPEC, MrCluster, 409),
    openapi_extra={**REQUIRED_BODY, **requires(ADMINISTER)},
)
def create_cluster(
    clusters: ClustersDep, body: Annotated[MrClusterRequest, Body(default_factory=MrClusterRequest)]
) -> Response:
    return reply(clusters.create(body))


@router.get(
    "",
    summary="All message-router clusters",
    responses=answers(SPEC, list[MrCluster]),
    openapi_extra=requires(PERMISSIONS.read("mr_clusters")),
)
def list_clusters(clusters: ClustersDep) -> Response:
    return reply(clusters.all())


@router.get(
    "/{clusterId}",
    summary="One message-router cluster",
    responses=answers(SPEC, MrCluster, 404),
    openapi_extra=requires(PERMISSIONS.read("mr_clusters")),
)
def get_cluster(clusters: ClustersDep, clusterId: str) -> Response:
    return reply(clusters.get(clusterId))


@router.put(
    "/{clusterId}",
    summary="Replace a message-router cluster",
    responses=answers(SPEC, MrCluster, 404),
    openapi_extra={**REQUIRED_BODY, **requires(ADMINISTER)},
)
def replace_cluster(
    clusters: ClustersDep,
    clusterId: str,
    body: Annotated[MrClusterReplacement, Body(default_factory=MrClusterReplacement)],
) -> Response:
    return reply(clusters.replace(clusterId, body))


@router.delete(
    "/{clusterId}",
    summary="Delete a message-router cluster",
    responses=answers(SPEC, None, 404, status=204),
    openapi_extra=requires(ADMINISTER),
    **DELETE_DONE,
)
def delete_cluster(clusters: ClustersDep, clusterId: str) -> Response:
    clusters.delete(clusterId)
    return reply(None, 204)
