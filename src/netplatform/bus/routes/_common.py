"""What every route module of the bus controller uses: router construction (answers go through
:data:`netplatform.bus.answers.reply`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from ..deps import REPLAYABLE

DELETE_DONE: dict[str, Any] = {"status_code": 204, "response_class": Response}


def new_router(prefix: str, tag: str) -> APIRouter:
    """A router of bus objects: every GET answer is a function of the topology alone, so each
    may be replayed while the topology's generation stands (:mod:`netplatform.web.replay`)."""
    return APIRouter(prefix=prefix, tags=[tag], dependencies=[REPLAYABLE])


def use_existing(text: str | None) -> bool:
    """The ``useExisting`` query parameter: ``true`` in any case."""
    return (text or "").lower() == "true"
