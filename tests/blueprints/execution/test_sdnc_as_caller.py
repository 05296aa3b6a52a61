"""The ``sdnc`` source reads the config tree as the run's caller: a caller the config tree refuses
is refused through a run too, whoever the execution presents itself as; and the header that
names the caller is taken only from an identity allowed to act for others."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from netplatform.access.acting import ACTING_FOR_HEADER

from ...conftest import ServiceStarter, SettingsFactory
from ...support.cbas import assignment, execution
from .conftest import run, save
from .test_resolution import AR, PARAM_PATH, one_step, response, rest_definition

USERS = ",".join(
    [
        "admin:admin",
        "writer:writer-pw:blueprints.writer",
        "reader:reader-pw:blueprints.writer|configtree.reader",
        "exec-hop:hop-pw:platform.execution",
        "plain:plain-pw:configtree.writer",
    ]
)
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


@dataclass
class Platform:
    tree: str
    catalog: str

    def at(self, which: str, user: str, password: str) -> httpx.Client:
        url = self.tree if which == "tree" else self.catalog
        return httpx.Client(base_url=url, auth=(user, password), timeout=30)


def platform(start_service: ServiceStarter, make_settings: SettingsFactory, **execution: str) -> Platform:
    tree = start_service("configtree", make_settings(users=USERS))
    catalog = start_service(
        "blueprints", make_settings(users=USERS, execution_sdnc_url=tree.url, **execution)
    )
    with tree.client() as admin:
        assert admin.put(f"{AR}/ar-7/", json=ENTRY).status_code in (201, 204)
    with catalog.client() as admin:
        mapping = [assignment("ar-id"), assignment("vlan", "sdnc", type_="integer", dependencies=["ar-id"])]
        files = {"Templates/net-mapping.json": mapping, "Templates/net-template.vtl": "vlan=$vlan"}
        save(
            admin,
            one_step("sdnc-read", {"net": "vtl"}, files, definitions=rest_definition("sdnc", PARAM_PATH)),
        )
    return Platform(tree.url, catalog.url)


@pytest.fixture
def as_admin(start_service: ServiceStarter, make_settings: SettingsFactory) -> Iterator[Platform]:
    """The execution presents the bootstrap administrator (the default)."""
    yield platform(start_service, make_settings)


@pytest.fixture
def as_hop(start_service: ServiceStarter, make_settings: SettingsFactory) -> Iterator[Platform]:
    """The execution presents an identity that holds platform.execution and nothing else."""
    yield platform(
        start_service, make_settings, execution_sdnc_user="exec-hop", execution_sdnc_password="hop-pw"
    )


def sdnc_run(client: httpx.Client, status: int) -> httpx.Response:
    request = execution("sdnc-read", "assign", {"assign-properties": {"ar-id": "ar-7"}})
    answer = client.post("/api/v1/execution-service/process", json=request)
    assert answer.status_code == status, answer.text
    return answer


@pytest.mark.parametrize("fixture", ["as_admin", "as_hop"])
def test_a_run_reads_the_config_tree_with_its_caller_s_permissions(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    found: Platform = request.getfixturevalue(fixture)
    with found.at("tree", "writer", "writer-pw") as tree:
        assert tree.get(f"{AR}/ar-7/").status_code == 403  # the writer may not read the tree...
    with found.at("catalog", "writer", "writer-pw") as catalog:
        refused = sdnc_run(catalog, 500).json()  # ...nor through a run
    assert "answered 403" in refused["status"]["errorMessage"], refused
    assert "110" not in str(refused["payload"])
    with found.at("catalog", "reader", "reader-pw") as catalog:
        allowed = sdnc_run(catalog, 200).json()  # a caller who may read the tree reads it
    assert response(allowed)["params"] == {"net": "vlan=110"}
    with found.at("catalog", "admin", "admin") as catalog:
        assert (
            response(
                run(catalog, execution("sdnc-read", "assign", {"assign-properties": {"ar-id": "ar-7"}}))
            )["map"]["net"]["vlan"]
            == 110
        )


def test_the_caller_header_is_taken_only_from_an_identity_allowed_to_act_for_others(
    as_hop: Platform,
) -> None:
    path = f"{AR}/ar-7/"
    for user, password in (("writer", "writer-pw"), ("plain", "plain-pw")):
        with as_hop.at("tree", user, password) as tree:
            named = tree.get(path, headers={ACTING_FOR_HEADER: "admin"})
            assert named.status_code == 403, named.text  # never decided on anyone's permissions
            assert "may not act for another identity" in named.text
    with as_hop.at("tree", "plain", "plain-pw") as tree:
        assert tree.get(path).status_code == 200  # its own read, without the header
    with as_hop.at("tree", "exec-hop", "hop-pw") as tree:
        assert tree.get(path).status_code == 403  # the hop alone reads nothing
        assert tree.get(path, headers={ACTING_FOR_HEADER: "writer"}).status_code == 403
        assert tree.get(path, headers={ACTING_FOR_HEADER: "reader"}).status_code == 200
        assert tree.put(path, json=ENTRY, headers={ACTING_FOR_HEADER: "reader"}).status_code == 403
        assert tree.get(path, headers={ACTING_FOR_HEADER: "no|such"}).status_code == 403
