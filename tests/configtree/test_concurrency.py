"""Concurrent writers: one key is created once, writers to different keys or nodes lose nothing."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from ..conftest import ADMIN
from ..support.configtree_paths import ROOT, M, entry_body, entry_path, example_entry
from ..support.servers import http_client

WRITERS = 8


def run_together(config_url: str, requests: Sequence[Callable[[httpx.Client], httpx.Response]]) -> list[int]:
    """Send the requests from as many threads at once (a barrier lines them up); their statuses."""
    barrier = threading.Barrier(len(requests))

    def send(request: Callable[[httpx.Client], httpx.Response]) -> int:
        with http_client(config_url, auth=ADMIN) as session:
            session.get("/health")  # connect before the barrier
            barrier.wait(timeout=30)
            return request(session).status_code

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(send, requests))


def test_concurrent_posts_of_one_key_create_it_once(client: httpx.Client, config_url: str) -> None:
    body = {"brg-allotted-resource": [example_entry("same")]}
    list_path = ROOT + f"{M}:brg-allotted-resource/"
    statuses = run_together(config_url, [lambda s: s.post(list_path, json=body)] * WRITERS)
    assert sorted(statuses) == [201] + [409] * (WRITERS - 1)
    assert client.get(ROOT).json() == {f"{M}:brg-allotted-resources": body}


def test_concurrent_puts_of_one_new_key_create_it_once(client: httpx.Client, config_url: str) -> None:
    path = entry_path("same")
    statuses = run_together(
        config_url,
        [
            functools.partial(put_json, path, entry_body({"allotted-resource-id": "same", **_status(n)}))
            for n in range(WRITERS)
        ],
    )
    assert sorted(statuses) == [201] + [204] * (WRITERS - 1)
    assert len(client.get(ROOT).json()[f"{M}:brg-allotted-resources"]["brg-allotted-resource"]) == 1


def test_concurrent_writers_to_different_keys_lose_nothing(client: httpx.Client, config_url: str) -> None:
    client.put(entry_path("existing"), json=entry_body(example_entry("existing")))
    requests = [
        functools.partial(put_json, entry_path(f"ar-{n}"), entry_body(example_entry(f"ar-{n}")))
        for n in range(WRITERS)
    ]
    assert run_together(config_url, requests) == [201] * WRITERS
    stored = client.get(ROOT).json()[f"{M}:brg-allotted-resources"]["brg-allotted-resource"]
    assert sorted(entry["allotted-resource-id"] for entry in stored) == sorted(
        ["existing", *(f"ar-{n}" for n in range(WRITERS))]
    )
    assert all(entry == example_entry(entry["allotted-resource-id"]) for entry in stored)


def test_concurrent_writers_inside_one_entry_lose_nothing(client: httpx.Client, config_url: str) -> None:
    client.put(entry_path("shared"), json=entry_body({"allotted-resource-id": "shared"}))
    parameters = entry_path("shared", "allotted-resource-data", "brg-parameters")
    requests = [
        functools.partial(post_json, parameters, {"param": [{"name": f"p{n}", "value": str(n)}]})
        for n in range(WRITERS)
    ]
    assert run_together(config_url, requests) == [201] * WRITERS
    params = client.get(parameters).json()[f"{M}:brg-parameters"]["param"]
    assert sorted(param["name"] for param in params) == sorted(f"p{n}" for n in range(WRITERS))


def test_concurrent_posts_of_one_nested_node_create_it_once(client: httpx.Client, config_url: str) -> None:
    client.put(entry_path("shared"), json=entry_body({"allotted-resource-id": "shared"}))
    data = entry_path("shared", "allotted-resource-data")
    requests = [
        functools.partial(post_json, data, {"allotted-resource-oper-status": {"last-svc-request-id": str(n)}})
        for n in range(WRITERS)
    ]
    assert sorted(run_together(config_url, requests)) == [201] + [409] * (WRITERS - 1)


def put_json(path: str, body: dict[str, Any], session: httpx.Client) -> httpx.Response:
    return session.put(path, json=body)


def post_json(path: str, body: dict[str, Any], session: httpx.Client) -> httpx.Response:
    return session.post(path, json=body)


def _status(n: int) -> dict[str, object]:
    return {"allotted-resource-status": {"response-code": str(n)}}
