"""Replayed GET answers (web/replay.py) through real HTTP: never stale, never another caller's.

Two ``netplatform serve`` processes (bus, distribution, config tree, blueprint catalog, policy)
share one database: PostgreSQL when NETPLATFORM_TEST_DATABASE_URL is set, else one SQLite file.
Each test has instance B answer a GET twice, the second replayed (the ``answer_replays_total``
metric shows it), then writes through instance A: B's very next answer must carry the write. The
generation that invalidates B's answer is moved by the database's triggers, not by code (policy:
by its write funnel). An answer of one object (a feed, a config entry, a topic, a policy type)
stays replayed across writes to other objects (``answer_replays_across_writes_total``), never
across a write to its own, to everything (a NULL key), or one its instance can no longer see in
the change log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from netplatform.web.requestid import REQUEST_ID_HEADER

from ..blueprints.test_dictionaries import definition
from ..support.configtree_paths import entry_path, example_entry
from ..support.pairs import instance_pair
from ..support.servers import ServeProcess, free_port

SERVICES = ("bus", "distribution", "configtree", "blueprints", "policy")
ON_BEHALF = {"X-BUS-DR-ON-BEHALF-OF": "replay"}
FEED_TYPE = {"Content-Type": "application/vnd.bus-dr.feed"}


def metric(text: str, result: str) -> int:
    found = re.search(rf'^answer_replays_total\{{[^}}]*result="{result}"[^}}]*\}} ([0-9.e+]+)$', text, re.M)
    assert found, text
    return int(float(found.group(1)))


class Instance:
    def __init__(self, name: str, tmp_path: Path, database_url: str) -> None:
        self.database_url = database_url
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

    def across_writes(self, service: str) -> int:
        """Replays of an object's answer after writes to other objects had moved the generation."""
        text = self.http[service].get("/metrics").text
        found = re.search(r"^answer_replays_across_writes_total\{[^}]*\} ([0-9.e+]+)$", text, re.M)
        assert found, text
        return int(float(found.group(1)))

    def counts(self, service: str) -> tuple[int, int, int]:
        """(hits, stale, hits across writes) of ``service``."""
        return self.replays(service), self.replays(service, "stale"), self.across_writes(service)

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


def put_feed_description(instance: Instance, feed: str, description: str) -> None:
    document = instance.http["distribution"].get(feed, headers=ON_BEHALF).json()
    changed = {key: value for key, value in document.items() if key != "links"} | {"description": description}
    updated = instance.http["distribution"].put(feed, headers={**ON_BEHALF, **FEED_TYPE}, json=changed)
    assert updated.status_code == 200, updated.text


def test_a_feed_written_on_one_instance_is_read_at_once_on_the_other_which_replays_the_rest(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    first, other = create_feed(a, "object-first"), create_feed(a, "object-other")
    b.replayed("distribution", first, headers=ON_BEHALF)
    kept = b.replayed("distribution", other, headers=ON_BEHALF)
    put_feed_description(a, first, "second")
    hits, stale, carried = b.counts("distribution")

    assert b.http["distribution"].get(first, headers=ON_BEHALF).json()["description"] == "second"
    assert b.counts("distribution") == (hits, stale + 1, carried)
    assert b.http["distribution"].get(other, headers=ON_BEHALF).content == kept.content
    assert b.counts("distribution") == (hits + 1, stale + 1, carried + 1)


def test_a_listing_is_never_replayed_across_a_write_to_any_of_its_objects(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    listed = create_feed(a, "listed-first")
    b.replayed("distribution", "/", headers=ON_BEHALF)
    put_feed_description(a, listed, "changed")  # changes no URL: the listing is computed anyway
    _, stale, _ = b.counts("distribution")
    assert b.http["distribution"].get("/", headers=ON_BEHALF).status_code == 200
    assert b.replays("distribution", "stale") == stale + 1
    created = create_feed(a, "listed-second")

    listing = b.http["distribution"].get("/", headers=ON_BEHALF).json()
    assert [url for url in listing if url.endswith(created)], listing


def put_entry(instance: Instance, name: str, request_id: str) -> str:
    entry = example_entry(name)
    entry["allotted-resource-data"]["allotted-resource-operation-information"]["request-information"][
        "request-id"
    ] = request_id
    path = entry_path(name)
    body = {"GENERIC-RESOURCE-API:brg-allotted-resource": [entry]}
    assert instance.http["configtree"].put(path, json=body).status_code in (200, 201, 204)
    return path


def test_a_config_entry_written_on_one_instance_leaves_the_other_s_other_entries_replayed(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    first, other = put_entry(a, "ar-object-1", "one"), put_entry(a, "ar-object-2", "two")
    b.replayed("configtree", first)
    kept = b.replayed("configtree", other)
    put_entry(a, "ar-object-1", "changed-by-a")
    hits, stale, carried = b.counts("configtree")

    assert "changed-by-a" in b.http["configtree"].get(first).text
    assert b.http["configtree"].get(other).content == kept.content
    assert b.counts("configtree") == (hits + 1, stale + 1, carried + 1)


def test_a_change_log_pruned_past_what_an_instance_read_counts_as_everything_changed(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    first, other = put_entry(a, "ar-pruned-1", "one"), put_entry(a, "ar-pruned-2", "two")
    kept = b.replayed("configtree", other)
    put_entry(a, "ar-pruned-1", "changed")
    engine = create_engine(a.database_url)
    try:
        with engine.begin() as connection:  # what the writers' pruning does to rows long behind
            connection.execute(text("DELETE FROM configtree_changes"))
    finally:
        engine.dispose()
    put_entry(a, "ar-pruned-1", "changed again")
    hits, stale, carried = b.counts("configtree")

    # B has not read the log since before the first of the two writes, whose row is gone.
    assert b.http["configtree"].get(other).content == kept.content
    assert b.counts("configtree") == (hits, stale + 1, carried)
    assert "changed again" in b.http["configtree"].get(first).text
    assert b.http["configtree"].get(other).content == kept.content  # kept again, and replayed
    assert b.replays("configtree") == hits + 1


def ready_bus(instance: Instance) -> None:
    settings = {
        "busName": "lab1",
        "topicNsRoot": "org.example.bus",
        "drProvUrl": str(instance.http["distribution"].base_url),
        "bridgeAdminTopic": "a",
    }
    assert instance.http["bus"].put("/bus", json=settings).status_code == 200


def create_topic(instance: Instance, name: str) -> str:
    created = instance.http["bus"].post(
        "/topics", json={"topicName": name, "topicDescription": "first", "owner": "replay"}
    )
    assert created.status_code == 200, created.text
    return f"/topics/{created.json()['fqtn']}"


def test_a_write_to_a_table_without_object_keys_ends_every_object_s_replay(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    ready_bus(a)
    first, other = create_topic(a, "object-first"), create_topic(a, "object-other")
    b.replayed("bus", first)
    kept = b.replayed("bus", other)
    assert a.http["bus"].put(first, json={"topicDescription": "second"}).status_code == 200
    hits, stale, carried = b.counts("bus")
    assert b.http["bus"].get(first).json()["topicDescription"] == "second"
    assert b.http["bus"].get(other).content == kept.content
    assert b.counts("bus") == (hits + 1, stale + 1, carried + 1)
    # A site is written to a table with no object key (bus_locations): every answer may show it.
    created = a.http["bus"].post("/svcLocations", json={"svcLocationName": "object-site", "svcLayer": "edge"})
    assert created.status_code == 200, created.text

    assert b.http["bus"].get(other).content == kept.content
    assert b.counts("bus") == (hits + 1, stale + 2, carried + 1)


POLICY_TYPES = "/policy/api/v1/policytypes"


def create_policy_type(
    instance: Instance, name: str, version: str, parent: str = "tosca.policies.Root"
) -> None:
    body = {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "policy_types": {name: {"derived_from": parent, "version": version}},
    }
    created = instance.http["policy"].post(POLICY_TYPES, json=body)
    assert created.status_code == 200, created.text


def test_a_policy_type_s_new_version_ends_the_replays_of_its_own_and_its_descendants_answers_only(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    create_policy_type(a, "replay.policies.Parent", "1.0.0")
    create_policy_type(a, "replay.policies.Other", "1.0.0")
    create_policy_type(a, "replay.policies.Child", "1.0.0", parent="replay.policies.Parent")
    latest, child, other = (
        f"{POLICY_TYPES}/replay.policies.{name}/versions/{version}"
        for name, version in (("Parent", "latest"), ("Child", "1.0.0"), ("Other", "1.0.0"))
    )
    b.replayed("policy", latest)
    b.replayed("policy", child)
    kept = b.replayed("policy", other)
    create_policy_type(a, "replay.policies.Parent", "2.0.0")
    hits, stale, carried = b.counts("policy")

    assert "2.0.0" in b.http["policy"].get(latest).text
    assert b.http["policy"].get(child).status_code == 200  # it shows its parent: computed again
    assert b.http["policy"].get(other).content == kept.content
    assert b.counts("policy") == (hits + 1, stale + 2, carried + 1)


def test_a_deleted_policy_type_is_gone_at_once_from_the_other_instance_and_only_its_replay_ends(
    pair: tuple[Instance, Instance],
) -> None:
    """A delete records the type's key without looking for descendants (a type with children is
    not deleted): its own answer, replayed on the other instance, is 404 at once."""
    a, b = pair
    create_policy_type(a, "replay.policies.Gone", "1.0.0")
    create_policy_type(a, "replay.policies.Kept", "1.0.0")
    gone, kept_path = (f"{POLICY_TYPES}/replay.policies.{name}/versions/1.0.0" for name in ("Gone", "Kept"))
    b.replayed("policy", gone)
    kept = b.replayed("policy", kept_path)
    assert a.http["policy"].delete(gone).status_code == 200
    hits, stale, carried = b.counts("policy")

    assert b.http["policy"].get(gone).status_code == 404
    assert b.http["policy"].get(kept_path).content == kept.content
    assert b.counts("policy") == (hits + 1, stale + 1, carried + 1)
