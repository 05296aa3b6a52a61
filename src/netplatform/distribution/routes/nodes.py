"""The nodes of the deployment, for operators and the bus controller: GET /internal/nodes (spec 1.3);
an edge node on its own store announces itself to central with PUT /internal/nodes/{name}
(distribution/sites/)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from ...clock import wire_time_ms
from ...web.answers import reply
from ...web.errors import NotFound
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import CentralSideDep, NodeRegistryDep
from ..nodes import NodeView
from ..schemas import NodeAnnouncement, NodeBody
from ..sites.central import Announcement
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/internal/nodes", tags=["nodes"])

# Internal like every /internal route: platform.node (and platform.admin) only.
_CALL = requires(PERMISSIONS.internal("nodes"))


def node_body(view: NodeView) -> NodeBody:
    record = view.record
    return NodeBody(
        name=record.name,
        site=record.site,
        url=record.url,
        fqdn=urlsplit(record.url).netloc,
        started=wire_time_ms(record.started_ms),
        heartbeat=wire_time_ms(record.heartbeat_ms),
        up=view.up,
    )


@router.get(
    "",
    summary="List the distribution nodes (all sites, or one)",
    responses=answers(SPEC, list[NodeBody]),
    openapi_extra=_CALL,
)
def list_nodes(
    registry: NodeRegistryDep,
    site: Annotated[str | None, Query(description="Only the nodes of this site (svcLocationName)")] = None,
) -> Response:
    return reply([node_body(view) for view in registry.nodes(site)])


@router.get(
    "/{name}",
    summary="Get a distribution node",
    responses=answers(SPEC, NodeBody, 404),
    openapi_extra=_CALL,
)
def get_node(name: str, registry: NodeRegistryDep) -> Response:
    view = registry.node(name)
    if view is None:
        raise NotFound(f"Unknown node {name}.")
    return reply(node_body(view))


@router.put(
    "/{name}",
    summary="An edge node on its own store says where it is (its registration and heartbeat here)",
    responses=answers(SPEC, NodeBody, 400),
    # Where the platform's node credential goes: platform.node itself (and platform.admin), not
    # the bus's platform.bus, which may list nodes.
    openapi_extra=requires(PERMISSIONS.internal("announce")),
)
def announce_node(
    name: Annotated[str, Path(min_length=1, max_length=128)],
    announced: NodeAnnouncement,
    registry: NodeRegistryDep,
    central: CentralSideDep,
) -> Response:
    central.announce(Announcement(name, announced.site, announced.url))
    view = registry.node(name)
    assert view is not None  # just written
    return reply(node_body(view))
