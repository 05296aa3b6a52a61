"""Mirror bridges as arithmetic: which cluster pairs a topic needs, and which agent carries it.

Nothing here touches the database; :mod:`.bridges` loads the topology, asks these functions
and stores the answer (reference section 8).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from .replication import is_view_only
from .schemas import MirrorMaker, MrClient, MrCluster, ReplicationCase, Status, SvcLocation

R = ReplicationCase
Pair = tuple[str, str]

_UP, _DOWN = "edge-to-central", "central-to-edge"

# A client matched to a cluster: being provisioned there (NEW), provisioned (VALID) or failed
# there (INVALID, retried). STAGED clients have no cluster yet; DELETED ones are going.
PLACED = frozenset({Status.NEW.value, Status.VALID.value, Status.INVALID.value})

# replicationCase -> (direction per edge location, pair at the central location)
# In the central pair, N is the central cname, C the central cluster, G the global URL.
_RULES: dict[str, tuple[str | None, tuple[str, str] | None]] = {
    R.REPLICATION_EDGE_TO_CENTRAL.value: (_UP, None),
    R.REPLICATION_EDGE_TO_CENTRAL_TO_GLOBAL.value: (_UP, ("N", "G")),
    R.REPLICATION_CENTRAL_TO_EDGE.value: (_DOWN, None),
    R.REPLICATION_GLOBAL_TO_CENTRAL_TO_EDGE.value: (_DOWN, ("G", "N")),
    R.REPLICATION_CENTRAL_TO_GLOBAL.value: (None, ("N", "G")),
    R.REPLICATION_GLOBAL_TO_CENTRAL.value: (None, ("G", "N")),
    R.REPLICATION_EDGE_TO_FQDN.value: (_UP, None),
    R.REPLICATION_FQDN_TO_EDGE.value: (_DOWN, None),
    R.REPLICATION_EDGE_TO_FQDN_TO_GLOBAL.value: (_UP, ("C", "G")),
    R.REPLICATION_GLOBAL_TO_FQDN_TO_EDGE.value: (_DOWN, ("G", "C")),
    R.REPLICATION_FQDN_TO_GLOBAL.value: (None, ("C", "G")),
    R.REPLICATION_GLOBAL_TO_FQDN.value: (None, ("G", "C")),
}


@dataclass(frozen=True)
class Topology:
    """Where things are: site locations by name and message-router clusters."""

    locations: Mapping[str, SvcLocation]
    clusters: Sequence[MrCluster]
    central_cname: str | None = None

    def cluster_at(self, location: str) -> MrCluster | None:
        return next((c for c in self.clusters if c.svcLocationName == location), None)

    def groups(self) -> list[str]:
        """Distinct replication groups ("" = clusters without one, which spans all clusters)."""
        return list(dict.fromkeys(c.replicationGroup or "" for c in self.clusters))

    def locations_in(self, group: str) -> set[str]:
        return {
            c.svcLocationName or "" for c in self.clusters if not group or (c.replicationGroup or "") == group
        }


@dataclass
class BridgePlan:
    pairs: list[Pair] = field(default_factory=list)
    problem: str | None = None

    def add(self, pair: Pair) -> None:
        if pair not in self.pairs:
            self.pairs.append(pair)


def plan_bridges(
    fqtn: str, case: str | None, global_url: str | None, clients: Sequence[MrClient], topology: Topology
) -> BridgePlan:
    """The (source, target) cluster pairs the topic needs; a problem makes the topic INVALID."""
    plan = BridgePlan()
    rule = _RULES.get(case or "")
    if rule is None:
        return plan
    for group in topology.groups():
        _plan_group(
            plan, fqtn, rule, global_url or "", _replicating_places(clients, topology, group), topology
        )
    return plan


def _replicating_places(clients: Sequence[MrClient], topology: Topology, group: str) -> list[str]:
    in_group = topology.locations_in(group)
    places = [
        client.svcLocationName
        for client in clients
        if client.status in PLACED
        and not is_view_only(client)
        and client.svcLocationName in topology.locations
        and client.svcLocationName in in_group
    ]
    return list(dict.fromkeys(place for place in places if place is not None))


def _plan_group(
    plan: BridgePlan,
    fqtn: str,
    rule: tuple[str | None, tuple[str, str] | None],
    global_url: str,
    places: list[str],
    topology: Topology,
) -> None:
    if not places:
        return
    centrals = [place for place in places if topology.locations[place].central]
    if not centrals:
        plan.problem = f"no central location among the client locations of {fqtn}"
        return
    if len(centrals) > 1:
        plan.problem = f"more than one central location among the clients of {fqtn}: {', '.join(centrals)}"
        return
    central_cluster = topology.cluster_at(centrals[0])
    central = (central_cluster.fqdn if central_cluster else None) or ""
    names = {"C": central, "N": topology.central_cname or central, "G": global_url}
    direction, central_pair = rule
    for place in places:
        edge_cluster = topology.cluster_at(place)
        if place == centrals[0] or edge_cluster is None or direction is None:
            continue
        edge = edge_cluster.fqdn or ""
        plan.add((edge, central) if direction == _UP else (central, edge))
    if central_pair is not None:
        plan.add((names[central_pair[0]], names[central_pair[1]]))


def agent_names(source: str, target: str) -> Iterator[str]:
    """``S-To-T``, then the overflow agents ``S-To-T_1``, ``S-To-T_2``, ..."""
    base = f"{source}-To-{target}"
    yield base
    index = 1
    while True:
        yield f"{base}_{index}"
        index += 1


def agents_of_pair(pair: Pair, agents: Mapping[str, MirrorMaker]) -> tuple[list[MirrorMaker], str]:
    """The existing agents of a pair in name order, and the name the next one would get."""
    found: list[MirrorMaker] = []
    for name in agent_names(*pair):
        if name not in agents:
            return found, name
        found.append(agents[name])
    raise AssertionError("unreachable")  # pragma: no cover


def place_topic(fqtn: str, pair: Pair, agents: dict[str, MirrorMaker], max_topics: int) -> MirrorMaker:
    """Put the fqtn on the pair's agent that holds it, else the first with room, else a new one."""
    existing, next_name = agents_of_pair(pair, agents)
    for agent in existing:
        if fqtn in (agent.topics or []):
            return agent
    chosen = next((agent for agent in existing if len(agent.topics or []) < max_topics), None)
    if chosen is None:
        chosen = MirrorMaker(
            mmName=next_name, sourceCluster=pair[0], targetCluster=pair[1], topics=[], status=Status.NEW
        )
        agents[next_name] = chosen
    chosen.topics = [*(chosen.topics or []), fqtn]
    return chosen


def split_agent(agent: MirrorMaker, agents: dict[str, MirrorMaker], max_topics: int) -> list[MirrorMaker]:
    """Move the topics beyond ``max_topics`` (last first) to the pair's next agents with room."""
    changed = [agent]
    topics = list(agent.topics or [])
    pair = (agent.sourceCluster or "", agent.targetCluster or "")
    while len(topics) > max_topics:
        moving = topics.pop()
        receiver = _agent_with_room(pair, agents, max_topics, exclude=agent.mmName)
        receiver.topics = [*(receiver.topics or []), moving]
        if receiver not in changed:
            changed.append(receiver)
    agent.topics = topics
    return changed


def _agent_with_room(
    pair: Pair, agents: dict[str, MirrorMaker], max_topics: int, exclude: str | None
) -> MirrorMaker:
    existing, next_name = agents_of_pair(pair, agents)
    for candidate in existing:
        if candidate.mmName != exclude and len(candidate.topics or []) < max_topics:
            return candidate
    created = MirrorMaker(
        mmName=next_name, sourceCluster=pair[0], targetCluster=pair[1], topics=[], status=Status.NEW
    )
    agents[next_name] = created
    return created
