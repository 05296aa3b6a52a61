"""DELETE /delete/{subId}/{publishId}: a privileged subscriber acknowledges a delivered file.

Public to the kernel: the subscription's delivery credentials authenticate it (see
:mod:`..acknowledgements`).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...access.credentials import parse_basic
from ...web.answers import reply
from ...web.auth import PUBLIC
from ...web.openapi import answers
from ..deps import AcknowledgementsDep
from ..spec import SPEC

router = APIRouter(prefix="", tags=["publish"])


@router.delete(
    "/delete/{sub_id}/{publish_id}",
    summary="Acknowledge a file delivered to a privileged subscription (its delivery credentials)",
    responses=answers(SPEC, None, 401, 404, description="Acknowledged: the file is no longer offered"),
    openapi_extra=PUBLIC,
)
def acknowledge_file(
    request: Request, sub_id: str, publish_id: str, acknowledgements: AcknowledgementsDep
) -> Response:
    credentials = parse_basic(request.headers.get("authorization"))
    acknowledgements.acknowledge(sub_id, publish_id, credentials)
    return reply(None)
