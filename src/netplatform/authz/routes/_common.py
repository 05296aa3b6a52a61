"""What the authz route modules share: rendering a wire model."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from pydantic import BaseModel


def reply(model: BaseModel, status: int = 200) -> JSONResponse:
    return JSONResponse(model.model_dump(), status_code=status)
