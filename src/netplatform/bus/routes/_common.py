"""What every route module of the bus controller uses: router construction, documented answers, replies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from ...web.openapi import error_responses
from ..deps import REPLAYABLE
from ..spec import SPEC

DELETE_DONE: dict[str, Any] = {"status_code": 204, "response_class": Response}


def new_router(prefix: str, tag: str) -> APIRouter:
    """A router of bus objects: every GET answer is a function of the topology alone, so each
    may be replayed while the topology's generation stands (:mod:`netplatform.web.replay`)."""
    return APIRouter(prefix=prefix, tags=[tag], dependencies=[REPLAYABLE])


def answers(success: Any, *errors: int, status: int = 200) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses``: the success body's model and the error statuses the route can give."""
    documented: dict[int | str, dict[str, Any]] = {}
    if success is not None:
        documented[status] = {"model": success, "description": "Success"}
    else:
        documented[status] = {"description": "Done; no body"}
    documented.update(error_responses(SPEC, *errors))
    return documented


def use_existing(text: str | None) -> bool:
    """The ``useExisting`` query parameter: ``true`` in any case."""
    return (text or "").lower() == "true"


def reply(value: BaseModel | Sequence[BaseModel]) -> JSONResponse:
    """A compact JSON body without null members."""
    if isinstance(value, BaseModel):
        return JSONResponse(_dump(value))
    return JSONResponse([_dump(item) for item in value])


def _dump(value: BaseModel) -> Any:
    return value.model_dump(mode="json", exclude_none=True)


def no_content() -> Response:
    return Response(status_code=204)
