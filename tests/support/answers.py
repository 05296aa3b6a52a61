"""Checks of a service's answers that tests of every service make."""

from __future__ import annotations

from typing import Any

import httpx


def ok(response: httpx.Response, status: int = 200) -> Any:
    """The JSON body (None when empty) of a response that must have the given status; the
    request and the body are named when it has not."""
    request = response.request
    assert response.status_code == status, (
        request.method,
        str(request.url),
        response.status_code,
        response.text,
    )
    return response.json() if response.content else None
