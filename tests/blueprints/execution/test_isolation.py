"""Runs cannot starve the platform: in one ``netplatform serve`` process (one event loop, the
threads every service shares), sync runs of an ``sdnc`` CBA held at a slow endpoint take the
execution's own workers and queue, every other request is still answered, a run beyond the
queue is refused at once (503, Retry-After, in the output's shape), and once the endpoint
answers every admitted run reads the config tree and completes."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from ...support.cbas import PROCESS, assignment, execution
from ...support.servers import ServeProcess, free_port
from ...support.waiting import wait_until
from .http_stub import HttpStub
from .test_resolution import AR, PARAM_PATH, one_step, rest_definition

SERVICES = ("blueprints", "configtree", "policy", "authz")
WORKERS = 4
QUEUE = 16
RUNS = 50  # more than anyio's 40 shared threads: what the runs held before they had their own
ENTRY = {
    "GENERIC-RESOURCE-API:brg-allotted-resource": [
        {
            "allotted-resource-id": "ar-7",
            "allotted-resource-data": {
                "brg-topology": {"brg-parameters": {"param": [{"name": "vlan", "value": "110"}]}}
            },
        }
    ]
}


@pytest.fixture
def gate() -> Iterator[HttpStub]:
    stub = HttpStub({"value": "held"}, held=True).start()
    yield stub
    stub.stop()


@pytest.fixture
def served(tmp_path: Path, database_url: str | None, gate: HttpStub) -> Iterator[dict[str, httpx.Client]]:
    ports = {service: free_port() for service in SERVICES}
    env = {
        **{f"NETPLATFORM_{service.upper()}_PORT": str(port) for service, port in ports.items()},
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_USERS": "admin:admin",
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_INSTANCE_NAME": "isolation",
        "NETPLATFORM_EXECUTION_WORKERS": str(WORKERS),
        "NETPLATFORM_EXECUTION_QUEUE": str(QUEUE),
        "NETPLATFORM_EXECUTION_QUEUE_WAIT_S": "120",
        "NETPLATFORM_EXECUTION_REST_TIMEOUT_S": "120",
        "NETPLATFORM_EXECUTION_REST_SOURCES": f"gate={gate.url}",
        **({"NETPLATFORM_DATABASE_URL": database_url} if database_url else {}),
    }
    only = [arg for service in SERVICES for arg in ("--only", service)]
    process = ServeProcess(env, only, log_path=tmp_path / "serve.log").start(wait_ports=list(ports.values()))
    clients = {
        service: httpx.Client(base_url=f"http://127.0.0.1:{port}", auth=("admin", "admin"), timeout=120)
        for service, port in ports.items()
    }
    try:
        yield clients
    finally:
        gate.open()  # whatever the test saw: no run stays held while the process stops
        for client in clients.values():
            client.close()
        process.stop()


def held_sdnc_cba() -> bytes:
    """``held`` from the gate first, then ``vlan`` from the config tree (sdnc)."""
    definitions = rest_definition("sdnc", PARAM_PATH)
    definitions["held"] = {
        "name": "held",
        "property": {"type": "string", "description": "held"},
        "sources": {"gate": {"type": "source-rest", "properties": {"url-path": "/hold", "path": "/value"}}},
    }
    mapping = [
        assignment("ar-id"),
        assignment("held", "gate"),
        assignment("vlan", "sdnc", type_="integer", dependencies=["ar-id", "held"]),
    ]
    files = {"Templates/net-mapping.json": mapping, "Templates/net-template.vtl": "vlan=$vlan $held"}
    return one_step("held-sdnc", {"net": "vtl"}, files, definitions=definitions)


def test_runs_beyond_the_pool_wait_or_are_refused_and_every_other_service_answers(
    served: dict[str, httpx.Client], gate: HttpStub
) -> None:
    catalog, tree = served["blueprints"], served["configtree"]
    assert tree.put(f"{AR}/ar-7/", json=ENTRY).status_code in (201, 204)
    saved = catalog.post("/api/v1/blueprint-model", files={"file": ("cba.zip", held_sdnc_cba())})
    assert saved.status_code == 200, saved.text
    request = execution("held-sdnc", "assign", {"assign-properties": {"ar-id": "ar-7"}})
    with ThreadPoolExecutor(RUNS) as senders:
        runs: list[Future[httpx.Response]] = [
            senders.submit(catalog.post, PROCESS, json=request) for _ in range(RUNS)
        ]
        gate.wait_for(WORKERS)  # every worker holds a run at the gate...
        refused = RUNS - WORKERS - QUEUE
        wait_until(lambda: sum(run.done() for run in runs) >= refused, what=f"{refused} runs refused")
        # ...the queue is full, and the rest of the platform answers, through the same loop.
        for service, path in (
            ("configtree", f"{AR}/ar-7/"),
            ("authz", "/authn/cred"),
            ("policy", "/policy/api/v1/healthcheck"),
            ("blueprints", "/api/v1/blueprint-model"),
        ):
            answer = served[service].get(path, timeout=15)  # generous: idle, they take milliseconds
            assert answer.status_code == 200, (service, answer.text)
        assert gate.arrived == WORKERS  # nothing more started while the workers were held
        for run in (run for run in runs if run.done()):
            answer = run.result()
            assert answer.status_code == 503, answer.text
            assert int(answer.headers["Retry-After"]) >= 1
            body = answer.json()
            assert body["status"]["code"] == 503
            assert body["status"]["eventType"] == "EVENT_COMPONENT_FAILURE"
            assert "busy" in body["status"]["errorMessage"]
        gate.open()
        answers = [run.result() for run in runs]
    statuses = [answer.status_code for answer in answers]
    assert statuses.count(503) == refused and statuses.count(200) == WORKERS + QUEUE, statuses
    for answer in answers:
        if answer.status_code == 200:  # each admitted run read the config tree, as sdnc
            assert answer.json()["payload"]["assign-response"]["params"] == {"net": "vlan=110 held"}
