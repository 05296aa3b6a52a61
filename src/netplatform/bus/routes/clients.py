"""Message-router clients (``/mr_clients``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request
from fastapi.responses import JSONResponse, Response

from .. import clients
from ..schemas import MrClient
from ._shared import DELETE_DONE, answers, database, new_router, no_content, reply, settings_of

router = new_router("/mr_clients", "message-router clients")
Payload = Annotated[MrClient | None, Body()]


@router.post("", summary="Create a client of a topic", responses=answers(MrClient, 404))
def create_client(request: Request, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        client = clients.create(session, settings_of(request), body or MrClient())
    return reply(client)


@router.get("", summary="All message-router clients", responses=answers(list[MrClient]))
def list_clients(request: Request) -> JSONResponse:
    with database(request).read() as session:
        return reply(clients.list_clients(session))


@router.get("/{clientId}", summary="One client by mrClientId", responses=answers(MrClient, 404))
def get_client(request: Request, clientId: str) -> JSONResponse:
    with database(request).read() as session:
        return reply(clients.get(session, clientId))


@router.put(
    "/{clientId}",
    summary="Replace a client's role, identity, action and location",
    responses=answers(MrClient, 404),
)
def replace_client(request: Request, clientId: str, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        client = clients.replace(session, settings_of(request), clientId, body or MrClient())
    return reply(client)


@router.delete(
    "/{clientId}", summary="Delete a client", responses=answers(None, 404, status=204), **DELETE_DONE
)
def delete_client(request: Request, clientId: str) -> Response:
    with database(request).write() as session:
        clients.remove(session, settings_of(request), clientId)
    return no_content()
