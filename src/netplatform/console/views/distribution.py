"""Distribution: feeds (listed by the bus controller, then those made at the distribution
service directly), a feed's subscriptions, its logs as a filterable timeline, and publishing a
file with the feed's publisher credentials.

The distribution API lists only live feeds' URLs, so the list is the bus's ``GET /feeds``
(docs/bus.md), whose pubs carry the endpoint credentials the publish route needs
(docs/distribution.md); the live feeds the bus does not know are read one by one after it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import FormData, UploadFile

from ..apis import ApiError, Unreachable, refusal_status
from ..deliverychart import delivery_chart
from ..grants import api_permission
from ..sessions import Session
from ..web import apis, checked_form, current_session, field, grants, render
from .bus import bus_get

router = APIRouter()
# The log query's filters (docs/distribution.md, "Log records"), passed through when not empty.
LOG_FILTERS = ("type", "statusCode", "expiryReason", "publishId", "filename")
TYPES = {"pub": "publish", "del": "delivery", "exp": "expiry", "fwd": "forward"}
EXPIRY_REASONS = ("notRetryable", "retriesExhausted", "diskFull", "other")
# Who may publish from the console. The publish route is authorized by the feed (the publisher's
# own credentials, which the console holds for the user): so the console offers it, and accepts it,
# only from users who may manage the platform's feeds.
PUBLISH_PERMISSION = api_permission("distribution", "feeds", "write")
# Feeds the bus does not know are read one by one (GET /feed/{id}): the newest this many.
MAX_DIRECT = 50


def seg(value: str) -> str:
    return quote(value, safe="")


async def dist_get(request: Request, session: Session, path: str) -> Any:
    """Feed and subscription reads need an on-behalf-of name (1-8 characters): the user's."""
    headers = {"X-BUS-DR-ON-BEHALF-OF": session.user[:8] or "console", "Accept": "application/json"}
    response = await apis(request).call("distribution", "GET", path, session.credentials, headers=headers)
    if response.status_code != 200:
        return ApiError.of(response)
    return response.json()


@dataclass
class DirectFeeds:
    """Live feeds of the distribution service that the bus's list does not have."""

    feeds: list[dict[str, Any]] = dataclass_field(default_factory=list)  # newest first
    total: int = 0  # how many the bus does not know (more than shown beyond MAX_DIRECT)
    error: str = ""


@router.get("/distribution")
async def feeds(request: Request, session: Session = Depends(current_session)) -> Response:
    listing = await bus_get(request, session, "/feeds")
    if isinstance(listing, ApiError):
        return render(
            request,
            "api_error.html",
            {"title": "Distribution", "error": listing},
            refusal_status(listing.status),
        )
    known = {str(feed.get("feedId")) for feed in listing if isinstance(feed, dict)}
    direct = await direct_feeds(request, session, known)
    context = {"title": "Distribution", "feeds": listing, "direct": direct}
    return render(request, "distribution/feeds.html", context)


async def direct_feeds(request: Request, session: Session, known: set[str]) -> DirectFeeds:
    """The distribution service's live feeds (``GET /``, URLs oldest first) not in the bus's list,
    with their names; the bus's list stands alone when the service does not answer."""
    try:
        listed = await dist_get(request, session, "/")
    except Unreachable as error:
        return DirectFeeds(error=f"distribution did not answer: {error.reason}")
    if isinstance(listed, ApiError):
        return DirectFeeds(error=f"distribution answered {listed.status} to GET /: {listed.message}")
    ids = [str(url).rstrip("/").rsplit("/", 1)[-1] for url in listed] if isinstance(listed, list) else []
    unknown = [feed_id for feed_id in ids if feed_id not in known]
    newest = list(reversed(unknown[-MAX_DIRECT:]))
    try:
        details = await asyncio.gather(*(dist_get(request, session, "/feed/" + seg(one)) for one in newest))
    except Unreachable as error:
        return DirectFeeds(error=f"distribution did not answer: {error.reason}")
    rows = [
        {
            **from_distribution(feed_id, detail if isinstance(detail, dict) else {}),
            "readable": isinstance(detail, dict),
        }
        for feed_id, detail in zip(newest, details, strict=True)
    ]
    return DirectFeeds(rows, len(unknown))


def time_param(value: str) -> str:
    """A ``datetime-local`` value is read as UTC; anything else goes to the API as typed."""
    try:
        moment = datetime.strptime(value, "%Y-%m-%dT%H:%M")  # UTC, as the form says
    except ValueError:
        return value
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def log_query(params: dict[str, str]) -> str:
    query = {name: params[name] for name in LOG_FILTERS if params.get(name)}
    query.update({name: time_param(params[name]) for name in ("start", "end") if params.get(name)})
    return urlencode(query)


@router.get("/distribution/feeds/{feed_id}")
async def feed_page(request: Request, feed_id: str, session: Session = Depends(current_session)) -> Response:
    params = {name: value.strip() for name, value in request.query_params.items()}
    bus_feed, dist_feed = await asyncio.gather(
        bus_get(request, session, "/feeds/" + seg(feed_id)),
        dist_get(request, session, "/feed/" + seg(feed_id)),
    )
    bus_known = not isinstance(bus_feed, ApiError)
    if isinstance(bus_feed, ApiError) and bus_feed.status == 404 and isinstance(dist_feed, dict):
        bus_feed = from_distribution(feed_id, dist_feed)  # made at the distribution service directly
    if isinstance(bus_feed, ApiError):
        status = refusal_status(bus_feed.status)
        return render(request, "api_error.html", {"title": f"Feed {feed_id}", "error": bus_feed}, status)
    sub_ids = await subscription_ids(request, session, feed_id, bus_feed)
    sub_id = params.get("sub", "")
    log_path = f"/sublog/{seg(sub_id)}" if sub_id else f"/feedlog/{seg(feed_id)}"
    records, *details = await asyncio.gather(
        dist_get(request, session, f"{log_path}?{log_query(params)}"),
        *(dist_get(request, session, "/subs/" + seg(one)) for one in sub_ids),
    )
    by_id = {str(sub.get("subId")): sub for sub in bus_feed.get("subs") or []}
    subs = [
        (one, by_id.get(one, {}), detail if isinstance(detail, dict) else {})
        for one, detail in zip(sub_ids, details, strict=True)
    ]
    context = {
        "title": f"Feed {bus_feed.get('feedName')} {bus_feed.get('feedVersion')}",
        "feed": bus_feed,
        "bus_known": bus_known,
        "dist_feed": dist_feed if isinstance(dist_feed, dict) else {},
        "dist_error": dist_feed if isinstance(dist_feed, ApiError) else None,
        "subs": subs,
        "records": list(reversed(records)) if isinstance(records, list) else [],
        "log_error": records if isinstance(records, ApiError) else None,
        "chart": delivery_chart(records) if sub_id and isinstance(records, list) else None,
        "params": params,
        "types": TYPES,
        "expiry_reasons": EXPIRY_REASONS,
        "published": params.get("published", ""),
    }
    return render(request, "distribution/feed.html", context)


def from_distribution(feed_id: str, feed: dict[str, Any]) -> dict[str, Any]:
    """A feed the bus does not know, in the bus's field names the page shows; its publishers are
    the feed's endpoint ids. Their passwords are not in the service's answers (it keeps hashes
    only): whoever publishes as one types it (``direct`` marks such a feed)."""
    authorization = feed.get("authorization") or {}
    if not isinstance(authorization, dict):
        authorization = {}
    endpoints = [e for e in authorization.get("endpoint_ids") or [] if isinstance(e, dict) and e.get("id")]
    return {
        "feedId": feed_id,
        "feedName": feed.get("name", ""),
        "feedVersion": feed.get("version", ""),
        "feedDescription": feed.get("description", ""),
        "owner": feed.get("publisher", ""),
        "asprClassification": authorization.get("classification", ""),
        "publishURL": (feed.get("links") or {}).get("publish", ""),
        "suspended": bool(feed.get("suspend")),
        "pubs": [{"pubId": str(e["id"]), "username": str(e["id"])} for e in endpoints],
        "subs": [],
        "direct": True,
    }


async def feed_of(request: Request, session: Session, feed_id: str) -> dict[str, Any] | ApiError:
    """The bus's feed, or the distribution service's in the bus's names when the bus has none."""
    bus_feed, dist_feed = await asyncio.gather(
        bus_get(request, session, "/feeds/" + seg(feed_id)),
        dist_get(request, session, "/feed/" + seg(feed_id)),
    )
    if isinstance(bus_feed, ApiError) and bus_feed.status == 404 and isinstance(dist_feed, dict):
        return from_distribution(feed_id, dist_feed)
    return bus_feed if isinstance(bus_feed, (dict, ApiError)) else ApiError(502, "not a feed", [])


async def subscription_ids(
    request: Request, session: Session, feed_id: str, bus_feed: dict[str, Any]
) -> list[str]:
    """The distribution service's own list (``GET /subscribe/{feedId}``: subscription URLs) with
    the bus's subscribers added; the bus's alone where that service does not list them."""
    listed = await dist_get(request, session, "/subscribe/" + seg(feed_id))
    ids = [str(url).rstrip("/").rsplit("/", 1)[-1] for url in listed] if isinstance(listed, list) else []
    ids += [str(sub["subId"]) for sub in bus_feed.get("subs") or [] if sub.get("subId")]
    return list(dict.fromkeys(ids))


@router.post("/distribution/feeds/{feed_id}/publish")
async def publish(request: Request, feed_id: str, session: Session = Depends(current_session)) -> Response:
    """PUT the file to the distribution service as the chosen publisher of the feed: a bus pub, or
    one of the endpoint ids of a feed the bus does not know."""
    form = await checked_form(request, session)
    if not grants(request).allows(PUBLISH_PERMISSION):
        # The service sees the publisher's credentials, not the user's: the console decides here.
        return _publish_refused(
            request, feed_id, f"Publishing from the console needs {PUBLISH_PERMISSION}.", 403
        )
    feed = await feed_of(request, session, feed_id)
    if isinstance(feed, ApiError):
        status = refusal_status(feed.status)
        return render(request, "api_error.html", {"title": f"Feed {feed_id}", "error": feed}, status)
    pubs = {str(pub.get("pubId")): pub for pub in feed.get("pubs") or []}
    pub = pubs.get(field(form, "pub"))
    upload = form.get("file")
    if pub is None or not isinstance(upload, UploadFile):
        return _publish_refused(request, feed_id, "Choose a publisher and a file.")
    file_id = field(form, "fileId").strip() or (upload.filename or "")
    if not file_id or "/" in file_id:
        return _publish_refused(request, feed_id, "The file name must be given and hold no '/'.")
    response = await apis(request).call(
        "distribution",
        "PUT",
        f"/publish/{seg(feed_id)}/{seg(file_id)}",
        (str(pub.get("username") or ""), _publisher_password(form)),
        content=await upload.read(),
        headers={"Content-Type": upload.content_type or "application/octet-stream"},
    )
    if response.status_code != 204:
        error = ApiError.of(response)
        message = f"The API answered {error.status}: {error.message}"
        return _publish_refused(request, feed_id, message, refusal_status(error.status))
    published = response.headers.get("X-BUS-DR-PUBLISH-ID", "")
    target = f"/distribution/feeds/{seg(feed_id)}?" + urlencode({"published": published})
    return RedirectResponse(target + "#publish", status_code=303)


def _publisher_password(form: FormData) -> str:
    """As the user typed it: neither service answers a publisher's password once it is made."""
    return field(form, "password")


def _publish_refused(request: Request, feed_id: str, message: str, status: int = 400) -> Response:
    context = {"title": "Publish refused", "message": message, "hint": "Go back to the feed and try again."}
    return render(request, "message.html", {**context, "back": f"/distribution/feeds/{seg(feed_id)}"}, status)
