"""The baseline of the goals table: a bare Starlette app with one JSON route, served by uvicorn
from the project's venv exactly as the services are (one process, keep-alive, no access log)."""

from __future__ import annotations

import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def hello(request: Request) -> JSONResponse:
    return JSONResponse({"service": "bare", "status": "UP"})


app = Starlette(routes=[Route("/", hello)])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
