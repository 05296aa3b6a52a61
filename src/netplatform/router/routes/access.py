"""Whether an identity may publish or fetch a topic here, asked by the bus controller (issue 38).

The bus calls a client VALID only once its ``clientIdentity`` can actually publish (``pub``) or
fetch (``sub``) its topic at its cluster's router; this route answers from the checks a publish
and a fetch take (:meth:`.events.Events.decide`): the topic's ACLs, the guarded topics' rule,
and the roles the identity holds here (at a site, from its replica of the central directory).
It needs ``platform.router.internal|access|call`` (``platform.bus``, ``platform.node``,
``platform.admin``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import EventsDep, SubjectDep
from ..schemas import AccessAnswer
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/internal/topics", tags=["topics"])

ASK_ACCESS = PERMISSIONS.internal("access")


@router.get(
    "/{topic}/access",
    summary="Whether an identity may publish (pub) or fetch (sub) the topic here, and why not",
    responses=answers(SPEC, AccessAnswer, 400, 403, 404, 503),
    openapi_extra=requires(ASK_ACCESS),
)
async def access(
    topic: str,
    action: Annotated[Literal["pub", "sub"], Query(description="pub: publish; sub: fetch")],
    events: EventsDep,
    subject: SubjectDep,
) -> Response:
    decision = await events.decide(topic, subject.caller, action)
    answer = AccessAnswer(
        identity=subject.identity, action=action, allowed=decision.allowed, reason=decision.reason
    )
    return reply(answer)
