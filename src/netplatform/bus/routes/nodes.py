"""File-distribution nodes (``/dr_nodes``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request
from fastapi.responses import JSONResponse, Response

from .. import nodes
from ..schemas import DrNode
from ._shared import DELETE_DONE, answers, database, new_router, no_content, reply

router = new_router("/dr_nodes", "file-distribution nodes")
Payload = Annotated[DrNode | None, Body()]


@router.post("", summary="Create a file-distribution node", responses=answers(DrNode, 409))
def create_node(request: Request, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        node = nodes.create(session, body or DrNode())
    return reply(node)


@router.get("", summary="All file-distribution nodes", responses=answers(list[DrNode]))
def list_nodes(request: Request) -> JSONResponse:
    with database(request).read() as session:
        return reply(nodes.list_nodes(session))


@router.get("/{fqdn}", summary="One file-distribution node", responses=answers(DrNode, 404))
def get_node(request: Request, fqdn: str) -> JSONResponse:
    with database(request).read() as session:
        return reply(nodes.get(session, fqdn))


@router.put("/{fqdn}", summary="Replace a file-distribution node", responses=answers(DrNode, 404))
def replace_node(request: Request, fqdn: str, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        node = nodes.replace(session, fqdn, body or DrNode())
    return reply(node)


@router.delete(
    "/{fqdn}",
    summary="Delete a file-distribution node",
    responses=answers(None, 404, status=204),
    **DELETE_DONE,
)
def delete_node(request: Request, fqdn: str) -> Response:
    with database(request).write() as session:
        nodes.delete(session, fqdn)
    return no_content()
