"""Domain rules without HTTP: fqtn, default replication, bridge pairs for every case, agent placement."""

from __future__ import annotations

import pytest

from netplatform.bus.bridge_plans import Topology, place_topic, plan_bridges, split_agent
from netplatform.bus.fqtn import Naming, build_fqtn, resolve_style
from netplatform.bus.replication import default_case
from netplatform.bus.roles import default_roles
from netplatform.bus.schemas import MirrorMaker, MrClient, MrCluster, SvcLocation

NAMING = Naming("org.example.bus", "lab1", "4411", "FQTN_LEGACY_FORMAT")


@pytest.mark.parametrize(
    ("style", "version", "expected"),
    [
        ("FQTN_LEGACY_FORMAT", None, "org.example.bus.lab1.alarms"),
        ("FQTN_PROJECTID_FORMAT", None, "org.example.bus.lab1.4411-alarms"),
        ("FQTN_PROJECTID_VERSION_FORMAT", "2.0", "org.example.bus.lab1.4411-alarms-2_0"),
        ("FQTN_PROJECTID_VERSION_FORMAT", "", "org.example.bus.lab1.4411-alarms-v1"),
    ],
)
def test_reference_fqtn_examples(style: str, version: str | None, expected: str) -> None:
    assert build_fqtn("alarms", style, version, NAMING) == expected


def test_style_resolution_and_roles() -> None:
    assert resolve_style(None, NAMING) == "FQTN_LEGACY_FORMAT"
    assert (
        resolve_style("FQTN_NOT_SPECIFIED", Naming("r", "b", "1", "FQTN_PROJECTID_FORMAT"))
        == "FQTN_PROJECTID_FORMAT"
    )
    assert resolve_style(None, Naming("r", "b", "1", "garbage")) == "FQTN_LEGACY_FORMAT"
    assert default_roles("org.example.bus.lab1.a", "org.example.bus") == (
        "org.example.bus.lab1.a.publisher",
        "org.example.bus.lab1.a.subscriber",
    )
    assert default_roles("com.x.a", "org.example.bus") == (None, None)


LOCATIONS = {
    "c": SvcLocation(svcLocationName="c", svcLayer="central"),
    "e1": SvcLocation(svcLocationName="e1", svcLayer="edge"),
    "e2": SvcLocation(svcLocationName="e2", svcLayer="edge"),
}
CLUSTERS = [
    MrCluster(svcLocationName="c", fqdn="C"),
    MrCluster(svcLocationName="e1", fqdn="E1"),
    MrCluster(svcLocationName="e2", fqdn="E2"),
]
TOPOLOGY = Topology(LOCATIONS, CLUSTERS, central_cname="N")


def client(place: str, *action: str, status: str = "VALID") -> MrClient:
    return MrClient(svcLocationName=place, action=list(action), status=status, clientRole="r")


CLIENTS = [client("e1", "pub"), client("c", "sub"), client("e2", "pub")]


@pytest.mark.parametrize(
    ("case", "pairs"),
    [
        ("REPLICATION_NONE", []),
        ("REPLICATION_EDGE_TO_CENTRAL", [("E1", "C"), ("E2", "C")]),
        ("REPLICATION_EDGE_TO_CENTRAL_TO_GLOBAL", [("E1", "C"), ("E2", "C"), ("N", "G")]),
        ("REPLICATION_CENTRAL_TO_EDGE", [("C", "E1"), ("C", "E2")]),
        ("REPLICATION_GLOBAL_TO_CENTRAL_TO_EDGE", [("C", "E1"), ("C", "E2"), ("G", "N")]),
        ("REPLICATION_CENTRAL_TO_GLOBAL", [("N", "G")]),
        ("REPLICATION_GLOBAL_TO_CENTRAL", [("G", "N")]),
        ("REPLICATION_EDGE_TO_FQDN", [("E1", "C"), ("E2", "C")]),
        ("REPLICATION_FQDN_TO_EDGE", [("C", "E1"), ("C", "E2")]),
        ("REPLICATION_EDGE_TO_FQDN_TO_GLOBAL", [("E1", "C"), ("E2", "C"), ("C", "G")]),
        ("REPLICATION_GLOBAL_TO_FQDN_TO_EDGE", [("C", "E1"), ("C", "E2"), ("G", "C")]),
        ("REPLICATION_FQDN_TO_GLOBAL", [("C", "G")]),
        ("REPLICATION_GLOBAL_TO_FQDN", [("G", "C")]),
    ],
)
def test_pairs_for_every_replication_case(case: str, pairs: list[tuple[str, str]]) -> None:
    plan = plan_bridges("t", case, "G", CLIENTS, TOPOLOGY)
    assert plan.problem is None
    assert plan.pairs == pairs


def test_only_valid_replicating_clients_count() -> None:
    clients = [client("e1", "view"), client("e2", "pub", status="STAGED"), client("c", "sub")]
    assert plan_bridges("t", "REPLICATION_EDGE_TO_CENTRAL", None, clients, TOPOLOGY).pairs == []
    assert plan_bridges("t", "REPLICATION_EDGE_TO_CENTRAL", None, [], TOPOLOGY).problem is None
    lonely = plan_bridges("t", "REPLICATION_EDGE_TO_CENTRAL", None, [client("e1", "pub")], TOPOLOGY)
    assert lonely.problem and "no central location" in lonely.problem


def test_replication_groups_keep_bridges_inside_a_group() -> None:
    clusters = [
        MrCluster(svcLocationName="c", fqdn="C", replicationGroup="g1"),
        MrCluster(svcLocationName="e1", fqdn="E1", replicationGroup="g1"),
        MrCluster(svcLocationName="e2", fqdn="E2", replicationGroup="g2"),
    ]
    topology = Topology(LOCATIONS, clusters)
    plan = plan_bridges("t", "REPLICATION_EDGE_TO_CENTRAL", None, CLIENTS, topology)
    assert plan.pairs == [("E1", "C")]
    assert plan.problem is not None  # group g2 has an edge client but no central location


def test_default_case() -> None:
    places = ["c", "e1", "e2"]
    assert (
        default_case([client("e1", "pub"), client("c", "sub")], LOCATIONS, places)
        == "REPLICATION_EDGE_TO_CENTRAL"
    )
    assert default_case([client("e1", "pub")], LOCATIONS, places) == "REPLICATION_NONE"
    assert default_case([client("e1", "pub"), client("e2", "sub")], LOCATIONS, places) == "REPLICATION_NONE"
    assert default_case([client("e1", "view"), client("c", "sub")], LOCATIONS, places) == "REPLICATION_NONE"
    assert default_case([client("e1", "pub"), client("c", "sub")], LOCATIONS, ["c"]) == "REPLICATION_NONE"


def test_placement_reuses_fills_then_overflows() -> None:
    agents: dict[str, MirrorMaker] = {}
    names = [place_topic(f"t{i}", ("S", "T"), agents, 2).mmName for i in range(5)]
    assert names == ["S-To-T", "S-To-T", "S-To-T_1", "S-To-T_1", "S-To-T_2"]
    assert place_topic("t0", ("S", "T"), agents, 2).mmName == "S-To-T"
    assert agents["S-To-T"].topics == ["t0", "t1"]


def test_split_moves_the_last_topics_to_overflow_agents() -> None:
    agent = MirrorMaker(mmName="S-To-T", sourceCluster="S", targetCluster="T", topics=["a", "b", "c", "d"])
    agents = {
        "S-To-T": agent,
        "S-To-T_1": MirrorMaker(mmName="S-To-T_1", sourceCluster="S", targetCluster="T", topics=["x"]),
    }
    changed = split_agent(agent, agents, 2)
    assert agent.topics == ["a", "b"]
    assert agents["S-To-T_1"].topics == ["x", "d"]
    assert agents["S-To-T_2"].topics == ["c"]
    assert [a.mmName for a in changed] == ["S-To-T", "S-To-T_1", "S-To-T_2"]
