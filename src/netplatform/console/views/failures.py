"""The overview's recent delivery failures, read from the distribution service's public log API.

A feed's log records do not say which subscription a delivery was for, so the failures are read
per live subscription (``GET /sublog/{subId}``): the newest ``MAX_FEEDS`` live feeds (``GET /``),
their subscriptions (``GET /subscribe/{feedId}``), and for each the failed (``statusCode=failure``,
4xx/5xx) and unanswered (``statusCode=-1``) delivery attempts of the last ``WINDOW``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from fastapi import Request

from ..apis import ApiError, Unreachable
from ..sessions import Session
from .distribution import dist_get, seg

WINDOW = timedelta(hours=24)
MAX_FEEDS = 20  # bounds one overview to 1 + 2 x feeds + 2 x their subscriptions log reads
SHOWN = 10
FAILED_STATUSES = ("failure", "-1")
HOURS = 24
CHART_WIDTH, CHART_HEIGHT = 240, 32


@dataclass(frozen=True)
class Failure:
    feed_id: str
    sub_id: str
    moment: datetime
    publish_id: str
    file_name: str
    status: str  # the HTTP status, or "no answer" (-1)
    request_uri: str
    feed_name: str = ""

    @property
    def log_link(self) -> str:
        query = urlencode({"sub": self.sub_id, "type": "del", "publishId": self.publish_id})
        return f"/distribution/feeds/{seg(self.feed_id)}?{query}#timeline"


@dataclass
class RecentFailures:
    failures: list[Failure] = field(default_factory=list)  # newest first, at most SHOWN
    total: int = 0  # failures in the window, over the feeds read
    feeds_read: int = 0
    feeds_live: int = 0
    chart: dict[str, Any] | None = None
    error: str = ""


def tail(url: object) -> str:
    """The id at the end of a ``self`` URL (``…/feed/3``, ``…/subs/12``)."""
    return str(url).rstrip("/").rsplit("/", 1)[-1]


def failure_of(feed_id: str, sub_id: str, record: dict[str, Any]) -> Failure | None:
    try:
        moment = datetime.fromisoformat(str(record["date"]))
    except (KeyError, ValueError):
        return None
    code = record.get("statusCode")
    uri = str(record.get("requestURI", ""))
    return Failure(
        feed_id=feed_id,
        sub_id=sub_id,
        moment=moment if moment.tzinfo else moment.replace(tzinfo=UTC),
        publish_id=str(record.get("publishId", "")),
        file_name=uri.rstrip("/").rsplit("/", 1)[-1],
        status="no answer" if code == -1 else str(code),
        request_uri=uri,
    )


async def recent_failures(request: Request, session: Session, now: datetime | None = None) -> RecentFailures:
    """Never raises for the service's sake: an unreachable or refusing service is said in ``error``."""
    try:
        return await _read(request, session, now or datetime.now(UTC))
    except Unreachable as error:
        return RecentFailures(error=f"distribution did not answer: {error.reason}")


async def _read(request: Request, session: Session, now: datetime) -> RecentFailures:
    listed = await dist_get(request, session, "/")
    if isinstance(listed, ApiError):
        return RecentFailures(error=f"distribution answered {listed.status} to GET /: {listed.message}")
    live = [tail(url) for url in listed] if isinstance(listed, list) else []
    feed_ids = live[-MAX_FEEDS:]  # the list is oldest first: the newest feeds
    sub_lists = await asyncio.gather(*(dist_get(request, session, "/subscribe/" + seg(f)) for f in feed_ids))
    pairs = [
        (feed_id, tail(url))
        for feed_id, subs in zip(feed_ids, sub_lists, strict=True)
        if isinstance(subs, list)
        for url in subs
    ]
    start = (now - WINDOW).strftime("%Y-%m-%dT%H:%M:%SZ")
    queries = [(feed_id, sub_id, status) for feed_id, sub_id in pairs for status in FAILED_STATUSES]
    answers = await asyncio.gather(
        *(
            dist_get(request, session, f"/sublog/{seg(sub)}?" + urlencode(_filter(status, start)))
            for _, sub, status in queries
        )
    )
    found = [
        failure
        for (feed_id, sub_id, _), answer in zip(queries, answers, strict=True)
        if isinstance(answer, list)
        for record in answer
        if isinstance(record, dict) and (failure := failure_of(feed_id, sub_id, record))
    ]
    found.sort(key=lambda failure: failure.moment, reverse=True)
    shown = await _named(request, session, found[:SHOWN])
    chart = hourly_chart([failure.moment for failure in found], now)
    return RecentFailures(shown, len(found), len(feed_ids), len(live), chart)


def _filter(status: str, start: str) -> dict[str, str]:
    return {"type": "del", "statusCode": status, "start": start}


async def _named(request: Request, session: Session, failures: list[Failure]) -> list[Failure]:
    """The failures with their feed's name and version (``GET /feed/{id}``, each feed read once)."""
    feed_ids = list(dict.fromkeys(failure.feed_id for failure in failures))
    feeds = await asyncio.gather(*(dist_get(request, session, "/feed/" + seg(f)) for f in feed_ids))
    names = {
        feed_id: f"{feed.get('name', '')} {feed.get('version', '')}".strip()
        for feed_id, feed in zip(feed_ids, feeds, strict=True)
        if isinstance(feed, dict)
    }
    return [replace(failure, feed_name=names.get(failure.feed_id, "")) for failure in failures]


def hourly_chart(moments: list[datetime], now: datetime) -> dict[str, Any]:
    """Geometry of a small column chart of failures per hour over the window, oldest hour first."""
    counts = [0] * HOURS
    for moment in moments:
        age = int((now - moment).total_seconds() // 3600)
        if 0 <= age < HOURS:
            counts[HOURS - 1 - age] += 1
    top = max(counts) or 1
    step = CHART_WIDTH / HOURS
    bars = []
    for index, count in enumerate(counts):
        height = round(CHART_HEIGHT * count / top, 1) if count else 1.0  # an empty hour is a line
        bars.append({"x": round(index * step, 1), "y": round(CHART_HEIGHT - height, 1), "h": height})
        bars[-1].update({"count": count, "hours_ago": HOURS - 1 - index, "empty": not count})
    return {
        "bars": bars,
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT + 16,  # room for the time axis's labels
        "base": CHART_HEIGHT,
        "bar_width": round(step - 2, 1),
        "top": max(counts),
    }
