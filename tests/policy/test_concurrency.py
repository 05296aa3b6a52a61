"""Concurrent creates of one name:version store exactly one entity."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from ..conftest import RunningService
from .conftest import API, policy_type_template

SAMPLE = "test.policies.Sample"
CLIENTS = 8


def post_concurrently(service: RunningService, templates: list[dict[str, object]]) -> list[httpx.Response]:
    def post(template: dict[str, object]) -> httpx.Response:
        with service.client() as client:
            return client.post(f"{API}/policytypes", json=template)

    with ThreadPoolExecutor(max_workers=len(templates)) as pool:
        return list(pool.map(post, templates))


def test_identical_concurrent_creates_all_succeed_and_store_one(
    service: RunningService, client: httpx.Client
) -> None:
    responses = post_concurrently(service, [policy_type_template() for _ in range(CLIENTS)])
    assert [response.status_code for response in responses] == [200] * CLIENTS
    stored = client.get(f"{API}/policytypes/{SAMPLE}").json()["policy_types"]
    assert list(stored) == [SAMPLE]


def test_different_concurrent_creates_store_exactly_one(
    service: RunningService, client: httpx.Client
) -> None:
    templates = [
        policy_type_template(properties={f"p{index}": {"type": "string"}}) for index in range(CLIENTS)
    ]
    responses = post_concurrently(service, templates)
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200] + [406] * (CLIENTS - 1)
    winner = next(
        template
        for template, response in zip(templates, responses, strict=True)
        if response.status_code == 200
    )
    stored = client.get(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").json()["policy_types"][SAMPLE]
    assert set(stored["properties"]) == set(winner["policy_types"][SAMPLE]["properties"])
