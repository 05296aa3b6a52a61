"""Subscribers (``/dr_subs``): subscriptions to a feed in the file-distribution service."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request
from fastapi.responses import JSONResponse, Response

from .. import subs
from ..schemas import DrSub
from ._shared import DELETE_DONE, answers, new_router, no_content, provisioner_of, reply

router = new_router("/dr_subs", "subscribers")
Payload = Annotated[DrSub | None, Body()]


@router.post("", summary="Subscribe to a feed", responses=answers(DrSub, 404, 409))
def create_sub(request: Request, body: Payload = None) -> JSONResponse:
    return reply(subs.create(provisioner_of(request), body or DrSub()))


@router.get("", summary="All subscribers", responses=answers(list[DrSub]))
def list_subs(request: Request) -> JSONResponse:
    return reply(subs.list_subs(provisioner_of(request)))


@router.get("/{subId}", summary="One subscriber", responses=answers(DrSub, 404))
def get_sub(request: Request, subId: str) -> JSONResponse:
    return reply(subs.get(provisioner_of(request), subId))


@router.put("/{subId}", summary="Replace a subscriber", responses=answers(DrSub, 404))
def replace_sub(request: Request, subId: str, body: Payload = None) -> JSONResponse:
    return reply(subs.replace(provisioner_of(request), subId, body or DrSub()))


@router.delete(
    "/{subId}", summary="Delete a subscriber", responses=answers(None, 404, status=204), **DELETE_DONE
)
def delete_sub(request: Request, subId: str) -> Response:
    subs.delete(provisioner_of(request), subId)
    return no_content()
