"""The execution's queue: a run that finds every worker busy waits its turn, for a bounded time
and in bounded numbers, then is refused (503, Retry-After, the output's shape); async runs
accepted beyond their workers and queue are refused the same way."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from ...conftest import RunningService, ServiceStarter, SettingsFactory
from ...support.cbas import PROCESS, assignment, cba, execution, resolution_node, workflow
from ...support.waiting import wait_until
from .conftest import save
from .http_stub import HttpStub


@pytest.fixture
def gate() -> Iterator[HttpStub]:
    stub = HttpStub({"value": "held"}, held=True).start()
    yield stub
    stub.stop()


def held_cba() -> bytes:
    """One step whose value is read from the gate: the run is held there until it opens."""
    definitions = {
        "held": {
            "name": "held",
            "property": {"type": "string", "description": "held"},
            "sources": {
                "gate": {"type": "source-rest", "properties": {"url-path": "/hold", "path": "/value"}}
            },
        }
    }
    steps = workflow({"s": {"target": "n"}}, outputs={"map": {"get_attribute": ["n", "assignment-map"]}})
    return cba(
        "held",
        {"go": steps},
        {"n": resolution_node({"p": None})},
        {"Templates/p-mapping.json": [assignment("held", "gate")]},
        definitions=definitions,
    )


def catalog(
    start: ServiceStarter, make_settings: SettingsFactory, gate: HttpStub, **bounds: Any
) -> RunningService:
    service = start("blueprints", make_settings(execution_rest_sources=f"gate={gate.url}", **bounds))
    with service.client() as client:
        save(client, held_cba())
    return service


def refused(answer: httpx.Response, reason: str, retry_after: str = "1") -> None:
    """503 in the output's shape, Retry-After the queue's wait (whole seconds, at least 1)."""
    assert answer.status_code == 503, answer.text
    assert answer.headers["Retry-After"] == retry_after
    body = answer.json()
    assert body["status"]["code"] == 503
    assert body["status"]["eventType"] == "EVENT_COMPONENT_FAILURE"
    assert reason in body["status"]["errorMessage"], body


def run(client: httpx.Client, mode: str = "sync") -> httpx.Response:
    return client.post(PROCESS, json=execution("held", "go", {}, mode=mode))


def test_a_sync_run_waits_for_a_worker_at_most_the_queue_wait(
    start_service: ServiceStarter, make_settings: SettingsFactory, gate: HttpStub
) -> None:
    bounds = {"execution_workers": 1, "execution_queue": 1, "execution_queue_wait_s": 0.5}
    service = catalog(start_service, make_settings, gate, **bounds)
    with service.client() as client, ThreadPoolExecutor(1) as senders:
        first = senders.submit(run, client)
        gate.wait_for(1)  # the one worker is held
        refused(run(client), "no execution worker was free within 0.5 s")
        gate.open()
        assert first.result().status_code == 200
        assert run(client).status_code == 200  # the worker is free again


def test_a_sync_run_beyond_the_queue_is_refused_at_once_and_the_queued_one_runs(
    start_service: ServiceStarter, make_settings: SettingsFactory, gate: HttpStub
) -> None:
    bounds = {"execution_workers": 1, "execution_queue": 1, "execution_queue_wait_s": 60}
    service = catalog(start_service, make_settings, gate, **bounds)
    with service.client() as client, ThreadPoolExecutor(3) as senders:
        first = senders.submit(run, client)
        gate.wait_for(1)
        # Two more: one takes the queue's only place, the other is refused at once.
        more: list[Future[httpx.Response]] = [senders.submit(run, client) for _ in range(2)]
        wait_until(lambda: any(one.done() for one in more), what="one run refused")
        (done,) = [one for one in more if one.done()]
        refused(done.result(), "1 runs are already waiting", retry_after="60")
        assert gate.arrived == 1  # the queued one has not started
        gate.open()
        (queued,) = [one for one in more if one is not done]
        assert first.result().status_code == 200
        assert queued.result().status_code == 200


def test_async_runs_beyond_their_workers_and_queue_are_refused(
    start_service: ServiceStarter, make_settings: SettingsFactory, gate: HttpStub
) -> None:
    bounds = {"execution_async_workers": 1, "execution_queue": 1, "execution_queue_wait_s": 0.5}
    with catalog(start_service, make_settings, gate, **bounds).client() as client:
        accepted = [run(client, "async") for _ in range(2)]
        assert [answer.status_code for answer in accepted] == [200, 200]  # one runs, one waits
        gate.wait_for(1)
        refused(run(client, "async"), "too many async runs are waiting for a worker")
        gate.open()
        wait_until(lambda: gate.arrived == 2, what="the queued async run started")

        def accepted_again() -> bool:
            return run(client, "async").status_code == 200

        wait_until(accepted_again, what="an async run accepted once the others ended")
