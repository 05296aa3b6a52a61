"""What every route module uses: router construction, the request's database and settings, replies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from ...settings import Settings
from ...store.db import Database
from ..errors import error_responses
from ..provisioning import Provisioner
from ..schemas import WireModel

DELETE_DONE: dict[str, Any] = {"status_code": 204, "response_class": Response}


def new_router(prefix: str, tag: str) -> APIRouter:
    return APIRouter(prefix=prefix, tags=[tag])


def database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def provisioner_of(request: Request) -> Provisioner:
    provisioner: Provisioner = request.app.state.bus_provisioner
    return provisioner


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def answers(success: Any, *errors: int, status: int = 200) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses``: the success body's model and the error statuses the route can give."""
    documented: dict[int | str, dict[str, Any]] = {}
    if success is not None:
        documented[status] = {"model": success, "description": "Success"}
    else:
        documented[status] = {"description": "Done; no body"}
    documented.update(error_responses(*errors))
    return documented


def reply(value: WireModel | BaseModel | Sequence[BaseModel]) -> JSONResponse:
    """A compact JSON body without null members."""
    if isinstance(value, BaseModel):
        return JSONResponse(_dump(value))
    return JSONResponse([_dump(item) for item in value])


def _dump(value: BaseModel) -> Any:
    return value.model_dump(mode="json", exclude_none=True)


def no_content() -> Response:
    return Response(status_code=204)
