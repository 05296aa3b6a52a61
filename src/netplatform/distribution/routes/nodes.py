"""The nodes of the deployment, for operators and the bus controller: GET /internal/nodes (spec 1.3)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from ...clock import wire_time_ms
from ...web.errors import NotFound
from ...web.openapi import error_responses
from ...web.permissions import requires
from ..deps import NodeRegistryDep
from ..nodes import NodeView
from ..schemas import NodeBody
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/internal/nodes", tags=["nodes"])

# Internal like every /internal route: platform.node (and platform.admin) only.
_CALL = requires(PERMISSIONS.internal("nodes"))


def render_node(view: NodeView) -> dict[str, object]:
    record = view.record
    body = NodeBody(
        name=record.name,
        site=record.site,
        url=record.url,
        fqdn=urlsplit(record.url).netloc,
        started=wire_time_ms(record.started_ms),
        heartbeat=wire_time_ms(record.heartbeat_ms),
        up=view.up,
    )
    return body.model_dump()


@router.get(
    "",
    summary="List the distribution nodes (all sites, or one)",
    responses={200: {"model": list[NodeBody]}},
    openapi_extra=_CALL,
)
def list_nodes(
    registry: NodeRegistryDep,
    site: Annotated[str | None, Query(description="Only the nodes of this site (svcLocationName)")] = None,
) -> Response:
    return JSONResponse([render_node(view) for view in registry.nodes(site)])


@router.get(
    "/{name}",
    summary="Get a distribution node",
    responses={200: {"model": NodeBody}, **error_responses(SPEC, 404)},
    openapi_extra=_CALL,
)
def get_node(name: str, registry: NodeRegistryDep) -> Response:
    view = registry.node(name)
    if view is None:
        raise NotFound(f"Unknown node {name}.")
    return JSONResponse(render_node(view))
