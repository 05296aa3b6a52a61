"""Message-router clients (``/mr_clients``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import ClientsDep
from ..request_schemas import REQUIRED_BODY, MrClientRequest
from ..schemas import MrClient
from ..spec import PERMISSIONS, SPEC
from ._common import DELETE_DONE, new_router

router = new_router("/mr_clients", "message-router clients")


@router.post(
    "",
    summary="Create a client of a topic",
    responses=answers(SPEC, MrClient, 404),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("mr_clients"))},
)
def create_client(
    clients: ClientsDep, body: Annotated[MrClientRequest, Body(default_factory=MrClientRequest)]
) -> Response:
    return reply(clients.create(body))


@router.get(
    "",
    summary="All message-router clients",
    responses=answers(SPEC, list[MrClient]),
    openapi_extra=requires(PERMISSIONS.read("mr_clients")),
)
def list_clients(clients: ClientsDep) -> Response:
    return reply(clients.all())


@router.get(
    "/{clientId}",
    summary="One client by mrClientId",
    responses=answers(SPEC, MrClient, 404),
    openapi_extra=requires(PERMISSIONS.read("mr_clients")),
)
def get_client(clients: ClientsDep, clientId: str) -> Response:
    return reply(clients.get(clientId))


@router.put(
    "/{clientId}",
    summary="Replace a client's role, identity, action and location",
    responses=answers(SPEC, MrClient, 404),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("mr_clients"))},
)
def replace_client(
    clients: ClientsDep,
    clientId: str,
    body: Annotated[MrClientRequest, Body(default_factory=MrClientRequest)],
) -> Response:
    return reply(clients.replace(clientId, body))


@router.delete(
    "/{clientId}",
    summary="Delete a client",
    responses=answers(SPEC, None, 404, status=204),
    openapi_extra=requires(PERMISSIONS.write("mr_clients")),
    **DELETE_DONE,
)
def delete_client(clients: ClientsDep, clientId: str) -> Response:
    clients.delete(clientId)
    return reply(None, 204)
