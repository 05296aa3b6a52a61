"""The event-loop lag probe: a loop held on purpose shows on /metrics, through real HTTP."""

from __future__ import annotations

import asyncio
import time

from fastapi import APIRouter
from prometheus_client.parser import text_string_to_metric_families
from starlette.responses import JSONResponse

from netplatform.access.permissions import ServicePermissions
from netplatform.settings import Settings
from netplatform.web.app import build_app
from netplatform.web.errors import ApiError
from netplatform.web.looplag import probing
from netplatform.web.permissions import requires
from netplatform.web.service import ServiceSpec

from ..support.databases import migrate
from ..support.servers import LiveServer, http_client

HELD_S = 0.3
router = APIRouter()


@router.post("/hold", openapi_extra=requires(ServicePermissions("lag-test").write("loop")))
async def hold_the_loop() -> dict[str, bool]:
    # A synchronous sleep in a coroutine: the whole event loop waits, as with a stalling service.
    time.sleep(HELD_S)  # noqa: ASYNC251 (the point of the test)
    return {"held": True}


def render(request: object, error: ApiError) -> JSONResponse:
    return JSONResponse({"message": error.message}, status_code=error.status, headers=error.headers)


SPEC = ServiceSpec(name="lag-test", title="lag test", version="0.0.1", render_error=render)


def lag_figures(exposition: str) -> dict[str, float]:
    figures: dict[str, float] = {}
    for family in text_string_to_metric_families(exposition):
        for sample in family.samples:
            if sample.name.startswith("event_loop_lag"):
                figures[sample.name + str(sample.labels.get("le", ""))] = sample.value
    return figures


def test_a_held_event_loop_shows_as_lag_on_metrics(settings: Settings) -> None:
    migrate(settings)
    with LiveServer(build_app(SPEC, settings, [router])) as server, http_client(server.url) as client:
        assert client.post("/hold").status_code == 200
        metrics = client.get("/metrics")
    assert metrics.status_code == 200
    figures = lag_figures(metrics.text)
    # The probe sleeps 50 ms: held 300 ms at any point of that sleep, it wakes >= 250 ms late.
    assert figures["event_loop_lag_max_seconds"] >= 0.2
    assert figures["event_loop_lag_seconds_count"] > figures["event_loop_lag_seconds_bucket0.1"]
    assert figures["event_loop_lag_seconds_sum"] >= 0.2


def test_every_app_on_a_loop_shares_one_probe_stopped_with_the_last() -> None:
    async def scenario() -> None:
        async with probing() as first:
            async with probing() as second:
                assert first is second
                assert first.task is not None
            assert not first.task.done()
        assert first.task.done()
        async with probing() as later:  # a new start gets a new probe
            assert later is not first

    asyncio.run(scenario())
