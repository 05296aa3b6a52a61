"""Subscribers (``/dr_subs``): subscriptions to a feed in the file-distribution service."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import SubscribersDep, SubsWriterDep
from ..request_schemas import REQUIRED_BODY, DrSubReplacement, DrSubRequest
from ..schemas import DrSub
from ..spec import PERMISSIONS, SPEC
from ._common import DELETE_DONE, disclosed, new_router

router = new_router("/dr_subs", "subscribers")


@router.post(
    "",
    summary="Subscribe to a feed; the one answer that shows its delivery password",
    responses=answers(SPEC, DrSub, 404, 409),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("dr_subs"))},
)
def create_sub(
    subscribers: SubscribersDep, body: Annotated[DrSubRequest, Body(default_factory=DrSubRequest)]
) -> Response:
    return reply(subscribers.create(body))


@router.get(
    "",
    summary="All subscribers",
    responses=answers(SPEC, list[DrSub]),
    openapi_extra=requires(PERMISSIONS.read("dr_subs")),
)
def list_subs(subscribers: SubscribersDep, writer: SubsWriterDep) -> Response:
    return reply([disclosed(sub, writer=writer) for sub in subscribers.all()])


@router.get(
    "/{subId}",
    summary="One subscriber",
    responses=answers(SPEC, DrSub, 404),
    openapi_extra=requires(PERMISSIONS.read("dr_subs")),
)
def get_sub(subscribers: SubscribersDep, writer: SubsWriterDep, subId: str) -> Response:
    return reply(disclosed(subscribers.get(subId), writer=writer))


@router.put(
    "/{subId}",
    summary="Replace a subscriber",
    responses=answers(SPEC, DrSub, 404),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("dr_subs"))},
)
def replace_sub(
    subscribers: SubscribersDep,
    subId: str,
    body: Annotated[DrSubReplacement, Body(default_factory=DrSubReplacement)],
) -> Response:
    return reply(disclosed(subscribers.replace(subId, body), writer=True))


@router.delete(
    "/{subId}",
    summary="Delete a subscriber",
    responses=answers(SPEC, None, 404, status=204),
    openapi_extra=requires(PERMISSIONS.write("dr_subs")),
    **DELETE_DONE,
)
def delete_sub(subscribers: SubscribersDep, subId: str) -> Response:
    subscribers.delete(subId)
    return reply(None, 204)
