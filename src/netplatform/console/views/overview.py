"""Overview: every service's health and what its /metrics says, fetched concurrently, with the
request and error rates since the console's previous sample of the same service, and the
distribution service's recent delivery failures (views/failures.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from ..apis import API_SERVICES, Apis, Unreachable
from ..metrics import MetricsSummary, Rates, RateTracker, bar_chart, rate_chart, summarize
from ..sessions import Session
from ..web import apis, current_session, rate_tracker, render
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


async def _state(client: Apis, rates: RateTracker, name: str, session: Session) -> ServiceState:
    url = client.urls[name]
    try:
        health = await client.call(name, "GET", "/health", None)
        metrics = await client.call(name, "GET", "/metrics", session.credentials)
    except Unreachable as error:
        return ServiceState(name, url, "UNREACHABLE", error.reason, None, None)
    status = "UP" if health.status_code == 200 else "DOWN"
    detail = "" if status == "UP" else f"/health answered {health.status_code}"
    if metrics.status_code != 200:
        return ServiceState(
            name, url, status, detail or f"/metrics answered {metrics.status_code}", None, None
        )
    summary = summarize(metrics.text)
    rate = rates.sample(name, summary)
    chart = rate_chart(rate.history) if rate else None
    return ServiceState(name, url, status, detail, summary, bar_chart(summary.by_class), rate, chart)


@router.get("/")
async def overview(request: Request, session: Session = Depends(current_session)) -> Response:
    client, rates = apis(request), rate_tracker(request)
    failures, *states = await asyncio.gather(
        recent_failures(request, session), *(_state(client, rates, name, session) for name in API_SERVICES)
    )
    context = {
        "title": "Overview",
        "services": states,
        "failures": failures,
        "window_hours": int(WINDOW.total_seconds() // 3600),
        "shown": SHOWN,
    }
    return render(request, "overview.html", context)
