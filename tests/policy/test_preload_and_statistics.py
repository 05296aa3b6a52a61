"""The preloaded catalog, the statistics counters (durable, shared) and the health check."""

from __future__ import annotations

import socket
import threading

import httpx

from netplatform.policy.catalog import Catalog
from netplatform.policy.policy_store import PolicyStore
from netplatform.policy.preload import load_catalog
from netplatform.policy.statistics import Statistics
from netplatform.settings import Settings
from netplatform.store.db import database_for

from ..conftest import RunningService, ServiceStarter
from .conftest import API, create_type, error_of

NAMING_POLICY = "SDNC_Policy.PLATFORM_NF_NAMING_TIMESTAMP"


def test_preloaded_catalog_counts(client: httpx.Client) -> None:
    listing = client.get(f"{API}/policytypes").json()
    assert len(listing["policy_types"]) == 37
    assert len(listing["data_types"]) == 50
    assert listing["policy_types"]["platform.policies.monitoring.tcagen2"]["version"] == "2.0.0"
    policies = client.get(f"{API}/policies").json()["topology_template"]["policies"]
    assert [list(entry) for entry in policies] == [[NAMING_POLICY]]
    referenced = client.get(
        f"{API}/policies/{NAMING_POLICY}/versions/1.0.0", params={"mode": "REFERENCED"}
    ).json()
    assert list(referenced["policy_types"]) == ["platform.policies.Naming"]
    assert len(referenced["data_types"]) == 3


def test_preloaded_content_matches_the_reference(client: httpx.Client) -> None:
    tca = client.get(f"{API}/policytypes/platform.policies.monitoring.tcagen2/versions/1.0.0").json()
    thresholds = tca["data_types"]["platform.datatypes.monitoring.thresholds"]["properties"]
    field_paths = thresholds["fieldPath"]["constraints"][0]["valid_values"]
    assert len(field_paths) == 43
    assert (
        field_paths[7]
        == "$.event.measurementsForVfScalingFields.vNicPerformanceArray[*].receivedTotalPacketsAccumulated"
    )
    naming = client.get(f"{API}/policies/{NAMING_POLICY}/versions/latest").json()
    models = naming["topology_template"]["policies"][0][NAMING_POLICY]["properties"]["naming-models"]
    assert [model["naming-type"] for model in models] == ["VNF", "VNFC", "VF-MODULE"]


def test_preloaded_types_cannot_be_deleted(client: httpx.Client) -> None:
    response = client.delete(f"{API}/policytypes/platform.policies.Monitoring/versions/1.0.0")
    assert response.status_code == 409
    assert (
        error_of(response)
        == "policy type platform.policies.Monitoring:1.0.0 is pre-defined and cannot be deleted"
    )


def test_catalog_is_loaded_once_so_a_deleted_policy_stays_deleted(
    service: RunningService, start_service: ServiceStarter
) -> None:
    with service.client() as client:
        assert client.delete(f"{API}/policies/{NAMING_POLICY}/versions/1.0.0").status_code == 200
    service.server.stop()
    restarted = start_service("policy")
    with restarted.client() as client:
        assert client.get(f"{API}/policies").status_code == 404
        assert len(client.get(f"{API}/policytypes").json()["policy_types"]) == 37


def test_two_instances_loading_at_once_store_the_catalog_once(
    settings: Settings, service: RunningService
) -> None:
    with service.client() as client:
        assert client.delete(f"{API}/policies/{NAMING_POLICY}/versions/1.0.0").status_code == 200
    catalog = Catalog(PolicyStore(database_for(settings)))
    results: list[bool] = []
    threads = [threading.Thread(target=lambda: results.append(load_catalog(catalog))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [False, False, False]  # already loaded by the service's start


def test_healthcheck(client: httpx.Client) -> None:
    response = client.get(f"{API}/healthcheck")
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Policy API"
    assert body["healthy"] is True
    assert body["code"] == 200
    assert body["message"] == "alive"
    assert body["url"] == socket.gethostname()


def statistics(client: httpx.Client) -> dict[str, int]:
    response = client.get(f"{API}/statistics")
    assert response.status_code == 200
    return response.json()  # type: ignore[no-any-return]


def test_statistics_count_each_kind_of_call(client: httpx.Client) -> None:
    create_type(client)  # policy type POST success
    client.post(f"{API}/policytypes", json={"policy_types": {}})  # policy type POST failure
    client.get(f"{API}/policytypes")  # policy type GET success
    client.get(f"{API}/policytypes/none.Such")  # policy type GET failure
    client.get(f"{API}/policies")  # policy GET success
    client.get(f"{API}/policies/none/versions/1.0.0")  # policy GET failure
    client.post(f"{API}/policies", json={})  # policy POST failure
    client.delete(f"{API}/policies/none/versions/1.0.0")  # DELETE failure: overall counters only
    client.get(f"{API}/healthcheck")  # success
    client.get(f"{API}/nodetemplates")  # not counted
    client.post(f"{API}/policies", content=b"<x/>", headers={"Content-Type": "text/xml"})  # 415: not counted
    report = statistics(client)
    assert report == {
        "code": 200,
        "totalApiCallCount": 10,  # the nine counted calls above and this statistics call
        "apiCallSuccessCount": 5,
        "apiCallFailureCount": 5,
        "totalPolicyGetCount": 2,
        "totalPolicyPostCount": 1,
        "totalPolicyTypeGetCount": 2,
        "totalPolicyTypePostCount": 2,
        "policyGetSuccessCount": 1,
        "policyGetFailureCount": 1,
        "policyPostSuccessCount": 0,
        "policyPostFailureCount": 1,
        "policyTypeGetSuccessCount": 1,
        "policyTypeGetFailureCount": 1,
        "policyTypePostSuccessCount": 1,
        "policyTypePostFailureCount": 1,
    }


def test_statistics_survive_restarts_and_add_up_across_instances(
    service: RunningService, start_service: ServiceStarter
) -> None:
    second = start_service("policy")  # a second instance on the same database
    with service.client() as first_client, second.client() as second_client:
        first_client.get(f"{API}/policytypes")
        second_client.get(f"{API}/policytypes")
        service.server.stop()  # a clean stop stores what the first instance counted
        assert statistics(second_client)["totalPolicyTypeGetCount"] == 2
    second.server.stop()
    restarted = start_service("policy")
    with restarted.client() as client:
        report = statistics(client)
    assert report["totalPolicyTypeGetCount"] == 2
    assert report["totalApiCallCount"] == 4


def test_counts_are_added_to_the_stored_rows(settings: Settings, service: RunningService) -> None:
    """Two processes' worth of counts on one database add up (flush adds, never overwrites)."""
    store = PolicyStore(database_for(settings))
    first, second = Statistics(store), Statistics(store)
    first.record(["totalPolicyGetCount", "totalPolicyGetCount"])
    second.record(["totalPolicyGetCount"])
    first.flush()
    second.flush()
    second.flush()  # nothing pending: no change
    assert store.read(lambda repository: repository.counters())["totalPolicyGetCount"] == 3
