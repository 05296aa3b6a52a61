"""``GET /api/v1/workflow/audit``: the latest records of every request, newest first, paged, masked."""

from __future__ import annotations

import json

import httpx

from ...conftest import RunningService
from ...support.cbas import execution
from .conftest import run, save
from .test_audit_and_components import secret_cba

LATEST = "/api/v1/workflow/audit"


def test_the_latest_records_newest_first_paged_and_masked(client: httpx.Client) -> None:
    save(client, secret_cba())
    requests = [
        execution("secret", "login", {"login-properties": {"user": f"u{n}", "password": f"pw-{n}"}})
        for n in range(3)
    ]
    for request in requests:
        run(client, request)
    failed = execution("secret", "no-such-workflow", {})
    run(client, failed, 404)
    ids = [r["commonHeader"]["requestId"] for r in [*requests, failed]]

    first = client.get(LATEST, params={"limit": 2})
    assert first.status_code == 200
    assert [r["requestId"] for r in first.json()] == [ids[3], ids[2]]
    newest = first.json()[0]
    assert newest["status"] == "Failed"
    assert newest["workflowName"] == "no-such-workflow"
    assert "no-such-workflow" in newest["errorMessage"]
    second = client.get(LATEST, params={"limit": 2, "offset": 2}).json()
    assert [r["requestId"] for r in second] == [ids[1], ids[0]]
    assert client.get(LATEST, params={"offset": 4}).json() == []

    everything = client.get(LATEST).json()  # default limit 20
    assert len(everything) == 4
    by_request = {record["requestId"]: record for record in everything}
    oldest = by_request[ids[0]]
    # The same record as audit-status answers, with the protected value masked in both contents.
    header = requests[0]["commonHeader"]
    same = client.get(f"/api/v1/workflow/audit-status/{header['requestId']}/{header['subRequestId']}")
    assert same.json() == [oldest]
    assert oldest["status"] == "Completed"
    assert "pw-0" not in oldest["workflowTaskContent"] + oldest["workflowResponseContent"]
    task = json.loads(oldest["workflowTaskContent"])
    assert task["login-request"]["login-properties"] == {"user": "u0", "password": "****REDACTED****"}


def test_bad_paging_is_a_400_and_reading_needs_the_read_permission(
    service: RunningService, client: httpx.Client
) -> None:
    for params in ({"limit": 0}, {"limit": 501}, {"limit": "ten"}, {"offset": -1}, {"offset": 10**12}):
        answer = client.get(LATEST, params=params)
        assert answer.status_code == 400, (params, answer.text)
        assert answer.json()["code"] == 400
    assert client.get(LATEST, params={"limit": 500, "offset": 10**9}).json() == []
    with service.client(auth=("operator", "op-secret")) as operator:
        refused = operator.get(LATEST)
        assert refused.status_code == 403
        assert "platform.blueprints.api|execution|read" in refused.json()["message"]
