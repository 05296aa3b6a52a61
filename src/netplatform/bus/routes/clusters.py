"""Message-router clusters (``/mr_clusters``), keyed by their site location."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request
from fastapi.responses import JSONResponse, Response

from .. import clusters
from ..schemas import MrCluster
from ._shared import DELETE_DONE, answers, database, new_router, no_content, reply, settings_of

router = new_router("/mr_clusters", "message-router clusters")
Payload = Annotated[MrCluster | None, Body()]


@router.post("", summary="Create a message-router cluster", responses=answers(MrCluster, 409))
def create_cluster(request: Request, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        cluster = clusters.create(session, settings_of(request), body or MrCluster())
    return reply(cluster)


@router.get("", summary="All message-router clusters", responses=answers(list[MrCluster]))
def list_clusters(request: Request) -> JSONResponse:
    with database(request).read() as session:
        return reply(clusters.list_clusters(session))


@router.get("/{clusterId}", summary="One message-router cluster", responses=answers(MrCluster, 404))
def get_cluster(request: Request, clusterId: str) -> JSONResponse:
    with database(request).read() as session:
        return reply(clusters.get(session, clusterId))


@router.put("/{clusterId}", summary="Replace a message-router cluster", responses=answers(MrCluster, 404))
def replace_cluster(request: Request, clusterId: str, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        cluster = clusters.replace(session, settings_of(request), clusterId, body or MrCluster())
    return reply(cluster)


@router.delete(
    "/{clusterId}",
    summary="Delete a message-router cluster",
    responses=answers(None, 404, status=204),
    **DELETE_DONE,
)
def delete_cluster(request: Request, clusterId: str) -> Response:
    with database(request).write() as session:
        clusters.delete(session, settings_of(request), clusterId)
    return no_content()
