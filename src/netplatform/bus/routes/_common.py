"""What every route module of the bus controller uses: router construction (answers go through
:data:`netplatform.bus.answers.reply`)."""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import APIRouter
from fastapi.responses import Response

from ..credentials import MASK
from ..deps import REPLAYABLE
from ..schemas import DrPub, DrSub, Feed

DELETE_DONE: dict[str, Any] = {"status_code": 204, "response_class": Response}


def new_router(prefix: str, tag: str) -> APIRouter:
    """A router of bus objects: every GET answer is a function of the topology alone, so each
    may be replayed while the topology's generation stands (:mod:`netplatform.web.replay`)."""
    return APIRouter(prefix=prefix, tags=[tag], dependencies=[REPLAYABLE])


def use_existing(text: str | None) -> bool:
    """The ``useExisting`` query parameter: ``true`` in any case."""
    return (text or "").lower() == "true"


Shown = TypeVar("Shown", Feed, DrPub, DrSub)


def disclosed(obj: Shown, *, writer: bool) -> Shown:
    """``obj`` as an answer other than the one that created it shows it (issue 36, point 4): the
    ``userpwd`` of it and its publishers and subscribers masked for a writer of the resource,
    absent for a reader (no role below the writer ever receives a credential)."""
    if isinstance(obj, Feed):
        pubs = [disclosed(pub, writer=writer) for pub in obj.pubs or []]
        subs = [disclosed(sub, writer=writer) for sub in obj.subs or []]
        return obj.model_copy(update={"pubs": pubs, "subs": subs})
    shown = MASK if writer and obj.userpwd is not None else None
    return obj.model_copy(update={"userpwd": shown})
