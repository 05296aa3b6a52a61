"""What every route module of the bus controller uses: router construction and replies."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from ...web.answers import Reply
from ..deps import REPLAYABLE

DELETE_DONE: dict[str, Any] = {"status_code": 204, "response_class": Response}

reply = Reply(drop_none=True)
"""The bus's answers leave their null members out (its error bodies too)."""


def new_router(prefix: str, tag: str) -> APIRouter:
    """A router of bus objects: every GET answer is a function of the topology alone, so each
    may be replayed while the topology's generation stands (:mod:`netplatform.web.replay`)."""
    return APIRouter(prefix=prefix, tags=[tag], dependencies=[REPLAYABLE])


def use_existing(text: str | None) -> bool:
    """The ``useExisting`` query parameter: ``true`` in any case."""
    return (text or "").lower() == "true"
