"""File-distribution nodes (``/dr_nodes``).

Registering, replacing and deleting one needs ``platform.bus.admin|dr_nodes|write``, which only
administrators hold (bus.writer does not): a site's nodes decide which node its publishers send
their credentials to and which node delivers its subscribers' files (issue 36, point 1)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import DistributionNodesDep
from ..request_schemas import REQUIRED_BODY, DrNodeRequest
from ..schemas import DrNode
from ..spec import PERMISSIONS, SPEC
from ._common import DELETE_DONE, new_router

router = new_router("/dr_nodes", "file-distribution nodes")
ADMINISTER = PERMISSIONS.admin("dr_nodes")
"""A site's nodes decide where its publishers publish and where its subscribers' files are
delivered from: administrators only."""
Payload = Annotated[DrNode | None, Body()]


@router.post(
    "",
    summary="Create a file-distribution node",
    responses=answers(SPEC, DrNode, 409),
    openapi_extra={**REQUIRED_BODY, **requires(ADMINISTER)},
)
def create_node(
    nodes: DistributionNodesDep, body: Annotated[DrNodeRequest, Body(default_factory=DrNodeRequest)]
) -> Response:
    return reply(nodes.create(body))


@router.get(
    "",
    summary="All file-distribution nodes",
    responses=answers(SPEC, list[DrNode]),
    openapi_extra=requires(PERMISSIONS.read("dr_nodes")),
)
def list_nodes(nodes: DistributionNodesDep) -> Response:
    return reply(nodes.all())


@router.get(
    "/{fqdn}",
    summary="One file-distribution node",
    responses=answers(SPEC, DrNode, 404),
    openapi_extra=requires(PERMISSIONS.read("dr_nodes")),
)
def get_node(nodes: DistributionNodesDep, fqdn: str) -> Response:
    return reply(nodes.get(fqdn))


@router.put(
    "/{fqdn}",
    summary="Replace a file-distribution node",
    responses=answers(SPEC, DrNode, 404),
    openapi_extra=requires(ADMINISTER),
)
def replace_node(nodes: DistributionNodesDep, fqdn: str, body: Payload = None) -> Response:
    return reply(nodes.replace(fqdn, body or DrNode()))


@router.delete(
    "/{fqdn}",
    summary="Delete a file-distribution node",
    responses=answers(SPEC, None, 404, status=204),
    openapi_extra=requires(ADMINISTER),
    **DELETE_DONE,
)
def delete_node(nodes: DistributionNodesDep, fqdn: str) -> Response:
    nodes.delete(fqdn)
    return reply(None, 204)
