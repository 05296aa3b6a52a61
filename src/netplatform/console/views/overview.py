"""Overview: every service's health and what its /metrics says, fetched concurrently, with the
request and error rates since the console's previous sample of the same service, and the
distribution service's recent delivery failures (views/failures.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from ..apis import API_SERVICES, Apis, Unreachable
from ..grants import Grants, api_permission
from ..metrics import MetricsSummary, Rates, RateTracker, bar_chart, rate_chart, summarize
from ..sessions import Session
from ..web import apis, current_session, grants, rate_tracker, render
from .failures import SHOWN, WINDOW, recent_failures

router = APIRouter()


@dataclass
class ServiceState:
    name: str
    url: str
    health: str  # UP, DOWN (non-200 /health) or UNREACHABLE
    detail: str
    metrics: MetricsSummary | None
    chart: dict[str, object] | None
    rates: Rates | None = None  # None: no previous sample yet ("—")
    rate_chart: dict[str, object] | None = None


async def _state(
    client: Apis, rates: RateTracker, name: str, session: Session, allowed: Grants
) -> ServiceState:
    url = client.urls[name]
    # Metrics need their own read permission: without it only the (public) health is shown.
    required = api_permission(name, "metrics", "read")
    try:
        health = await client.call(name, "GET", "/health", None)
        permitted = allowed.allows(required)
        metrics = await client.call(name, "GET", "/metrics", session.credentials) if permitted else None
    except Unreachable as error:
        return ServiceState(name, url, "UNREACHABLE", error.reason, None, None)
    status = "UP" if health.status_code == 200 else "DOWN"
    detail = "" if status == "UP" else f"/health answered {health.status_code}"
    if metrics is None:
        return ServiceState(name, url, status, detail or f"Reading its metrics needs {required}.", None, None)
    if metrics.status_code != 200:
        return ServiceState(
            name, url, status, detail or f"/metrics answered {metrics.status_code}", None, None
        )
    summary = summarize(metrics.text)
    rate = rates.sample(name, summary)
    chart = rate_chart(rate.history) if rate else None
    return ServiceState(name, url, status, detail, summary, bar_chart(summary.by_class), rate, chart)


# The overview's own refresh (static/console.js, opt-in): ?refresh=<seconds> within these bounds.
REFRESH_DEFAULT_S = 30
REFRESH_BOUNDS_S = (2, 3600)


def refresh_seconds(value: str | None) -> int:
    """The ``refresh`` query parameter as seconds, 0 (off) when absent or not a number in bounds."""
    try:
        seconds = int(value or "0")
    except ValueError:
        return 0
    low, high = REFRESH_BOUNDS_S
    return seconds if low <= seconds <= high else 0


@router.get("/")
async def overview(request: Request, session: Session = Depends(current_session)) -> Response:
    client, rates = apis(request), rate_tracker(request)
    refresh_s = refresh_seconds(request.query_params.get("refresh"))
    failures, *states = await asyncio.gather(
        recent_failures(request, session),
        *(_state(client, rates, name, session, grants(request)) for name in API_SERVICES),
    )
    context = {
        "title": "Overview",
        "services": states,
        "failures": failures,
        "window_hours": int(WINDOW.total_seconds() // 3600),
        "shown": SHOWN,
        "refresh_s": refresh_s,
        "default_refresh_s": refresh_s or REFRESH_DEFAULT_S,
        "self_link": f"/?refresh={refresh_s}" if refresh_s else "/",
        "read_at": datetime.now(UTC).strftime("%H:%M:%S"),
    }
    return render(request, "overview.html", context)
