"""What a called service said, in a line fit for a ``statusReason``: shared by the clients of the
routers and of authz (both answer errors as JSON with a ``message``)."""

from __future__ import annotations

import httpx


def answer_reason(response: httpx.Response) -> str:
    """The called service's error message (its JSON body's ``message``: the router's and the
    authz service's bodies both carry one), else the body's text."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return response.text.strip()[:500] or f"HTTP {response.status_code}"
