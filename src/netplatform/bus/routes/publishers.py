"""Publishers (``/dr_pubs``): endpoint identities of a feed."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import PublishersDep, PubsWriterDep
from ..request_schemas import REQUIRED_BODY, DrPubRequest
from ..schemas import DrPub
from ..spec import PERMISSIONS, SPEC
from ._common import DELETE_DONE, disclosed, new_router

router = new_router("/dr_pubs", "publishers")
Payload = Annotated[DrPub | None, Body()]


@router.post(
    "",
    summary="Add a publisher to a feed; the one answer that shows its password",
    responses=answers(SPEC, DrPub, 404),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("dr_pubs"))},
)
def create_pub(
    publishers: PublishersDep, body: Annotated[DrPubRequest, Body(default_factory=DrPubRequest)]
) -> Response:
    return reply(publishers.create(body))


@router.get(
    "",
    summary="All publishers",
    responses=answers(SPEC, list[DrPub]),
    openapi_extra=requires(PERMISSIONS.read("dr_pubs")),
)
def list_pubs(publishers: PublishersDep, writer: PubsWriterDep) -> Response:
    return reply([disclosed(pub, writer=writer) for pub in publishers.all()])


@router.get(
    "/{pubId}",
    summary="One publisher",
    responses=answers(SPEC, DrPub, 404),
    openapi_extra=requires(PERMISSIONS.read("dr_pubs")),
)
def get_pub(publishers: PublishersDep, writer: PubsWriterDep, pubId: str) -> Response:
    return reply(disclosed(publishers.get(pubId), writer=writer))


@router.put(
    "/{pubId}",
    summary="Change a publisher's credentials or location",
    responses=answers(SPEC, DrPub, 404),
    openapi_extra=requires(PERMISSIONS.write("dr_pubs")),
)
def replace_pub(publishers: PublishersDep, pubId: str, body: Payload = None) -> Response:
    return reply(disclosed(publishers.replace(pubId, body or DrPub()), writer=True))


@router.delete(
    "/{pubId}",
    summary="Remove a publisher",
    responses=answers(SPEC, None, 404, status=204),
    openapi_extra=requires(PERMISSIONS.write("dr_pubs")),
    **DELETE_DONE,
)
def delete_pub(publishers: PublishersDep, pubId: str) -> Response:
    publishers.delete(pubId)
    return reply(None, 204)
