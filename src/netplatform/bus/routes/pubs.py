"""Publishers (``/dr_pubs``): endpoint identities of a feed."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request
from fastapi.responses import JSONResponse, Response

from .. import pubs
from ..schemas import DrPub
from ._shared import DELETE_DONE, answers, new_router, no_content, provisioner_of, reply

router = new_router("/dr_pubs", "publishers")
Payload = Annotated[DrPub | None, Body()]


@router.post("", summary="Add a publisher to a feed", responses=answers(DrPub, 404))
def create_pub(request: Request, body: Payload = None) -> JSONResponse:
    return reply(pubs.create(provisioner_of(request), body or DrPub()))


@router.get("", summary="All publishers", responses=answers(list[DrPub]))
def list_pubs(request: Request) -> JSONResponse:
    return reply(pubs.list_pubs(provisioner_of(request)))


@router.get("/{pubId}", summary="One publisher", responses=answers(DrPub, 404))
def get_pub(request: Request, pubId: str) -> JSONResponse:
    return reply(pubs.get(provisioner_of(request), pubId))


@router.put("/{pubId}", summary="Change a publisher's credentials or location", responses=answers(DrPub, 404))
def replace_pub(request: Request, pubId: str, body: Payload = None) -> JSONResponse:
    return reply(pubs.replace(provisioner_of(request), pubId, body or DrPub()))


@router.delete(
    "/{pubId}", summary="Remove a publisher", responses=answers(None, 404, status=204), **DELETE_DONE
)
def delete_pub(request: Request, pubId: str) -> Response:
    pubs.delete(provisioner_of(request), pubId)
    return no_content()
