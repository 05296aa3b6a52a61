"""Message router (docs/router.md): topics, their ACLs, consumer groups and their lag, and a
topic's latest messages.

Messages are read with ``GET /internal/mirror/{topic}?after=&limit=``, which moves no consumer
group: looking at a topic in the console takes nothing away from its consumers.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from ...access.permissions import Permission
from ..apis import ApiError, refusal_status
from ..sessions import Session
from ..web import apis, current_session, grants, render

router = APIRouter()
# The only read that consumes nothing is the mirror agents' internal route: platform.node's (or an
# administrator's). Without it the page says so instead of asking for a certain 403.
MIRROR_READ = Permission("platform.router.internal", "mirror", "call")
READ_LIMIT = 10000  # the route's maximum: the newest SHOWN of the first READ_LIMIT after `after`
SHOWN = 50


async def router_get(request: Request, session: Session, path: str) -> Any:
    response = await apis(request).call("router", "GET", path, session.credentials)
    if response.status_code != 200:
        return ApiError.of(response)
    return response.json()


@router.get("/router")
async def topics(request: Request, session: Session = Depends(current_session)) -> Response:
    listing = await router_get(request, session, "/topics")
    if isinstance(listing, ApiError):
        return render(
            request,
            "api_error.html",
            {"title": "Message router", "error": listing},
            refusal_status(listing.status),
        )
    names = [str(name) for name in listing.get("topics") or []]
    return render(request, "router/topics.html", {"title": "Message router", "names": names})


@router.get("/router/topics/{topic}")
async def topic_page(
    request: Request, topic: str, after: int = 0, session: Session = Depends(current_session)
) -> Response:
    path = quote(topic, safe="")
    found = await router_get(request, session, "/topics/" + path)
    if isinstance(found, ApiError):
        return render(
            request, "api_error.html", {"title": topic, "error": found}, refusal_status(found.status)
        )
    after = max(after, 0)
    may_read = grants(request).allows(MIRROR_READ)
    read = (
        await router_get(request, session, f"/internal/mirror/{path}?after={after}&limit={READ_LIMIT}")
        if may_read
        else None
    )
    messages = read[-SHOWN:] if isinstance(read, list) else []
    groups = await router_get(request, session, f"/topics/{path}/groups")
    context = {
        "title": topic,
        "topic": found,
        "messages": list(reversed(messages)),
        "more": isinstance(read, list) and len(read) == READ_LIMIT,
        "last_seq": read[-1]["seq"] if isinstance(read, list) and read else after,
        "read_error": read if isinstance(read, ApiError) else None,
        "read_needs": "" if may_read else str(MIRROR_READ),
        "groups": [] if isinstance(groups, ApiError) else list(groups.get("groups") or []),
        "groups_error": groups if isinstance(groups, ApiError) else None,
        "after": after,
        "shown": SHOWN,
    }
    return render(request, "router/topic.html", context)
