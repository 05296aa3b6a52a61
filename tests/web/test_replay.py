"""Replayed GET answers (web/replay.py) through real HTTP: never stale, never another caller's.

Two ``netplatform serve`` processes (bus, distribution, config tree, blueprint catalog) share
one database: PostgreSQL when NETPLATFORM_TEST_DATABASE_URL is set, else one SQLite file. Each
test has instance B answer a GET twice, the second replayed (the ``answer_replays_total`` metric
shows it), then writes through instance A: B's very next answer must carry the write. The
generation that invalidates B's answer is moved by the database's triggers, not by code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from netplatform.web.requestid import REQUEST_ID_HEADER

from ..blueprints.test_dictionaries import definition
from ..support.configtree_paths import entry_path, example_entry
from ..support.pairs import instance_pair
from ..support.servers import ServeProcess, free_port

SERVICES = ("bus", "distribution", "configtree", "blueprints")
ON_BEHALF = {"X-BUS-DR-ON-BEHALF-OF": "replay"}
FEED_TYPE = {"Content-Type": "application/vnd.bus-dr.feed"}


def metric(text: str, result: str) -> int:
    found = re.search(rf'^answer_replays_total\{{[^}}]*result="{result}"[^}}]*\}} ([0-9.e+]+)$', text, re.M)
    assert found, text
    return int(float(found.group(1)))


class Instance:
    def __init__(self, name: str, tmp_path: Path, database_url: str) -> None:
        ports = {service: free_port() for service in SERVICES}
        env = {
            **{f"NETPLATFORM_{service.upper()}_PORT": str(port) for service, port in ports.items()},
            "NETPLATFORM_DATA_DIR": str(tmp_path / f"{name}-data"),
            "NETPLATFORM_DATABASE_URL": database_url,
            "NETPLATFORM_USERS": "admin:admin,viewer:viewer:distribution.reader",
            "NETPLATFORM_INSTANCE_NAME": name,
            "NETPLATFORM_ACCESS_LOG": "false",
            "NETPLATFORM_WORKERS": "1",
        }
        only = [arg for service in SERVICES for arg in ("--only", service)]
        self.process = ServeProcess(env, only, log_path=tmp_path / f"{name}.log")
        self.process.start(wait_ports=list(ports.values()))
        self.http = {
            service: httpx.Client(base_url=f"http://127.0.0.1:{port}", auth=("admin", "admin"), timeout=30)
            for service, port in ports.items()
        }

    def replays(self, service: str, result: str = "hit") -> int:
        return metric(self.http[service].get("/metrics").text, result)

    def replayed(self, service: str, path: str, **kwargs: Any) -> httpx.Response:
        """GET ``path`` twice and check the second answer was replayed; the second answer."""
        client = self.http[service]
        first = client.get(path, **kwargs)
        assert first.status_code == 200, first.text
        hits = self.replays(service)
        second = client.get(path, **kwargs)
        assert self.replays(service) == hits + 1, path
        assert second.content == first.content
        assert second.headers["content-type"] == first.headers["content-type"]
        return second

    def close(self) -> None:
        for client in self.http.values():
            client.close()
        assert self.process.stop() == 0, self.process.log()


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Instance, Instance]]:
    with instance_pair(tmp_path_factory.mktemp("replay"), Instance) as both:
        yield both


def location_names(response: httpx.Response) -> list[str]:
    return [location["svcLocationName"] for location in response.json()]


def test_a_site_created_on_one_bus_instance_is_in_the_next_listing_of_the_other(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    assert "replay-1" not in location_names(b.replayed("bus", "/svcLocations"))
    created = a.http["bus"].post("/svcLocations", json={"svcLocationName": "replay-1", "svcLayer": "central"})
    assert created.status_code == 200, created.text

    assert "replay-1" in location_names(b.http["bus"].get("/svcLocations"))
    assert b.replays("bus", "stale") >= 1
    assert b.replayed("bus", "/svcLocations/replay-1").json()["svcLayer"] == "central"
    assert a.http["bus"].delete("/svcLocations/replay-1").status_code == 204
    assert b.http["bus"].get("/svcLocations/replay-1").status_code == 404


def create_feed(instance: Instance, name: str) -> str:
    body = {
        "name": name,
        "version": "1",
        "description": "first",
        "authorization": {"classification": "c", "endpoint_ids": [{"id": "p", "password": "pw"}]},
    }
    created = instance.http["distribution"].post("/", headers={**ON_BEHALF, **FEED_TYPE}, json=body)
    assert created.status_code == 200, created.text
    return str(httpx.URL(created.json()["links"]["self"]).path)


def test_a_feed_changed_on_one_distribution_instance_reads_changed_on_the_other(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    feed = create_feed(a, "replay-changed")
    document = b.replayed("distribution", feed, headers=ON_BEHALF).json()
    assert document["description"] == "first"
    changed = {key: value for key, value in document.items() if key != "links"} | {"description": "second"}
    updated = a.http["distribution"].put(feed, headers={**ON_BEHALF, **FEED_TYPE}, json=changed)
    assert updated.status_code == 200, updated.text

    assert b.http["distribution"].get(feed, headers=ON_BEHALF).json()["description"] == "second"
    assert a.http["distribution"].delete(feed, headers=ON_BEHALF).status_code == 204
    assert b.http["distribution"].get(feed, headers=ON_BEHALF).status_code == 404


def test_a_replayed_answer_is_never_given_to_a_request_that_differs(pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    feed = create_feed(a, "replay-callers")
    b.replayed("distribution", feed, headers=ON_BEHALF)
    client = b.http["distribution"]

    # Without the caller's identity the route refuses, however often the same path was answered.
    assert client.get(feed).status_code == 400
    # Another set of credentials: the kernel checks them first, then the route answers anew.
    assert client.get(feed, headers=ON_BEHALF, auth=("admin", "wrong")).status_code == 401
    hits = b.replays("distribution")
    other_user = client.get(feed, headers=ON_BEHALF, auth=("viewer", "viewer"))
    assert other_user.status_code == 200
    assert b.replays("distribution") == hits


def test_a_replayed_answer_carries_the_request_s_own_id_and_is_counted_under_its_route(
    pair: tuple[Instance, Instance],
) -> None:
    _, b = pair
    client = b.http["bus"]
    b.replayed("bus", "/mr_clusters")
    answers = [client.get("/mr_clusters", headers={REQUEST_ID_HEADER: f"replay-id-{n}"}) for n in range(2)]
    assert [answer.headers[REQUEST_ID_HEADER] for answer in answers] == ["replay-id-0", "replay-id-1"]
    series = r'^http_requests_total\{[^}]*method="GET"[^}]*route="/mr_clusters"[^}]*status="200"[^}]*\}'
    counted = re.search(series + r" ([0-9.e+]+)$", client.get("/metrics").text, re.M)
    assert counted and float(counted.group(1)) >= 4


def test_a_config_entry_replaced_on_one_instance_reads_replaced_on_the_other(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    entry = example_entry("ar-replay")
    path = entry_path("ar-replay")
    body = {"GENERIC-RESOURCE-API:brg-allotted-resource": [entry]}
    assert a.http["configtree"].put(path, json=body).status_code in (200, 201, 204)
    before = b.replayed("configtree", path).json()
    entry["allotted-resource-data"]["allotted-resource-operation-information"]["request-information"][
        "request-id"
    ] = "changed-by-a"
    assert a.http["configtree"].put(path, json=body).status_code in (200, 204)

    after = b.http["configtree"].get(path).json()
    assert after != before
    assert "changed-by-a" in b.http["configtree"].get(path).text
    assert a.http["configtree"].delete(path).status_code in (200, 204)
    assert b.http["configtree"].get(path).status_code == 404


def test_a_dictionary_stored_on_one_catalog_instance_is_found_by_the_other(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    search = "/api/v1/dictionary/search/replay-vlan"
    assert b.replayed("blueprints", search).json() == []
    stored = a.http["blueprints"].post("/api/v1/dictionary/definition", json=definition("replay-vlan"))
    assert stored.status_code == 200, stored.text

    assert [found["name"] for found in b.http["blueprints"].get(search).json()] == ["replay-vlan"]
    assert b.replayed("blueprints", "/api/v1/dictionary/replay-vlan").json()["name"] == "replay-vlan"


def test_writes_outside_the_scope_leave_replayed_answers_standing(pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    feed = create_feed(a, "replay-standing")
    b.replayed("distribution", feed, headers=ON_BEHALF)
    # A publish writes the spool and the delivery queue, not the feeds: the answer stands.
    published = a.http["distribution"].put(
        feed.replace("/feed/", "/publish/") + "/file-1",
        content=b"payload",
        headers={"Content-Type": "application/octet-stream"},
        auth=("p", "pw"),
    )
    assert published.status_code in (200, 204), published.text
    hits = b.replays("distribution")
    assert b.http["distribution"].get(feed, headers=ON_BEHALF).status_code == 200
    assert b.replays("distribution") == hits + 1


def test_a_path_that_differs_only_raw_is_not_given_another_path_s_answer(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    path = entry_path("ar/slash")  # the key's slash travels as %2F
    assert "%2F" in path
    body = {"GENERIC-RESOURCE-API:brg-allotted-resource": [example_entry("ar/slash")]}
    assert a.http["configtree"].put(path, json=body).status_code in (200, 201, 204)
    assert b.replayed("configtree", path).status_code == 200

    # The same decoded path, but a real slash: another node of the tree, which does not exist.
    other = b.http["configtree"].get(path.replace("%2F", "/"))
    assert other.status_code != 200, other.text
