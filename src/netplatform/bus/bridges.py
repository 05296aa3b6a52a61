"""Mirror bridges in the database: recompute a topic's bridges; report and edit agents (reference 8).

Recomputing runs inside the caller's write transaction, which holds the topology lock
(:meth:`.repository.topology.TopologyRepository.lock_topology`), so agents are never assigned
twice; :class:`Bridges` is the service object of ``GET`` and ``PUT /bridge``. The arithmetic
(which pairs, which agent) is :mod:`.bridge_plans`.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from ..clock import wire_now
from ..settings import Settings
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest, NotFound
from .bridge_plans import place_topic, plan_bridges, split_agent
from .outbound.router.provisioning import RouterProvisioner
from .repository.rows import MIRROR_MAKERS, TOPICS, RowRepository
from .repository.topology import TopologyRepository
from .schemas import BrTopic, MirrorMaker, MrClient, Status, Topic


@dataclass(frozen=True)
class BridgeLimits:
    max_topics: int
    central_cname: str | None


def limits_of(settings: Settings) -> BridgeLimits:
    return BridgeLimits(settings.bus_max_topics_per_bridge, settings.bus_central_cname)


def load_agents(repo: RowRepository) -> dict[str, MirrorMaker]:
    return {agent.mmName or "": agent for agent in repo.list_all(MIRROR_MAKERS)}


class BridgeBook:
    """The agents of one transaction: changed in memory, written once by :meth:`save`."""

    def __init__(self, repo: TopologyRepository, limits: BridgeLimits) -> None:
        self.repo = repo
        self.limits = limits
        self.topology = repo.topology(limits.central_cname)
        self.agents: dict[str, MirrorMaker] = {}
        self._stored: set[str] = set()
        self._changed: set[str] = set()

    def _take_in(self, agents: list[MirrorMaker]) -> None:
        """Add agents read from the database (an agent already held keeps its in-memory state)."""
        for agent in agents:
            name = agent.mmName or ""
            if name not in self.agents:
                self.agents[name] = agent
                self._stored.add(name)

    def recompute(self, topic: Topic, clients: list[MrClient] | None = None) -> None:
        """Bring the agents in line with the topic's case and clients (``clients``: the topic's,
        read in this transaction, else read here); set the topic's status."""
        fqtn = topic.fqtn or ""
        if clients is None:
            clients = self.repo.clients.of_topic(fqtn)
        plan = plan_bridges(fqtn, topic.replicationCase, topic.globalMrURL, clients, self.topology)
        self._take_in(self.repo.agents.holding(fqtn))
        self._take_in(self.repo.agents.of_pairs(plan.pairs))
        for agent in self.agents.values():
            pair = (agent.sourceCluster or "", agent.targetCluster or "")
            if fqtn in (agent.topics or []) and pair not in plan.pairs:
                agent.topics = [name for name in agent.topics or [] if name != fqtn]
                self._touch(agent)
        for pair in plan.pairs:
            agent = place_topic(fqtn, pair, self.agents, self.limits.max_topics)
            self._touch(agent)
        # NEW: to be provisioned on the routers, which decides VALID (.outbound.router.provisioning).
        topic.status = Status.INVALID if plan.problem else Status.NEW
        topic.statusReason = plan.problem

    def settle(self, topic: Topic) -> None:
        """Recompute, and store the topic when its status or reason changed (call :meth:`save` after)."""
        before = (topic.status, topic.statusReason)
        self.recompute(topic)
        if (topic.status, topic.statusReason) != before:
            topic.lastMod = wire_now()
            self.repo.update(TOPICS, topic.fqtn or "", topic)

    def forget(self, fqtn: str) -> None:
        """The topic is gone: take its fqtn off every whitelist."""
        self._take_in(self.repo.agents.holding(fqtn))
        for agent in self.agents.values():
            if fqtn in (agent.topics or []):
                agent.topics = [name for name in agent.topics or [] if name != fqtn]
                self._touch(agent)

    def _touch(self, agent: MirrorMaker) -> None:
        """The agent's whitelist changed: NEW until its messages reached the target's router."""
        _to_send(agent)
        self._changed.add(agent.mmName or "")

    @property
    def changed(self) -> bool:
        """Whether an agent's whitelist changed since the last :meth:`save`."""
        return bool(self._changed)

    def save(self) -> None:
        for name in self._changed:
            self.repo.agents.save(self.agents[name], is_new=name not in self._stored)
        self._stored |= self._changed
        self._changed.clear()


def recompute_topics(repo: TopologyRepository, limits: BridgeLimits, topics: list[Topic]) -> None:
    """Recompute and store the bridges and status of several topics."""
    book = BridgeBook(repo, limits)
    for topic in topics:
        book.settle(topic)
    book.save()


# --- GET and PUT /bridge ---------------------------------------------------------------------


def presented(agent: MirrorMaker) -> MirrorMaker:
    """The agent as the wire shows it: topic count and the whitelist update message."""
    topics = list(agent.topics or [])
    message = {
        "messageID": str(random.randint(0, 99999)),
        "updateWhiteList": {"name": agent.mmName, "whitelist": ",".join(topics)},
    }
    return agent.model_copy(
        update={"topicCount": len(topics), "whitelistUpdateJSON": json.dumps(message, separators=(",", ":"))}
    )


def summary(agent: MirrorMaker) -> BrTopic:
    return BrTopic(
        brSource=agent.sourceCluster or "",
        brTarget=agent.targetCluster or "",
        mmAgentName=agent.mmName or "",
        topicCount=len(agent.topics or []),
    )


def chosen_agent_name(mmagent: str | None, source: str | None, target: str | None) -> str | None:
    """The agent a request names: ``mmagent``, or ``source``+``target`` (agent ``S-To-T``)."""
    if mmagent:
        return mmagent
    if (source is None) != (target is None):
        raise BadRequest("Either both source and target or neither must be provided")
    return f"{source}-To-{target}" if source is not None else None


def _report(repo: RowRepository, name: str | None, detail: bool) -> list[BrTopic] | MirrorMaker:
    agents = repo.list_all(MIRROR_MAKERS)
    if name is None:
        count = sum(len(agent.topics or []) for agent in agents)
        total = BrTopic(brSource="all", brTarget="all", mmAgentName="n/a", topicCount=count)
        return [*(summary(agent) for agent in agents), total] if detail else [total]
    agent = next((a for a in agents if a.mmName == name), None)
    if agent is None:
        raise NotFound("Requested object not found")
    return presented(agent) if detail else [summary(agent)]


def _to_send(agent: MirrorMaker) -> None:
    agent.lastMod = wire_now()
    agent.status, agent.statusReason = Status.NEW, None


def _edit(
    repo: TopologyRepository,
    limits: BridgeLimits,
    mmagent: str | None,
    body: MirrorMaker | None,
    *,
    refresh: bool,
    split: bool,
) -> MirrorMaker:
    """PUT /bridge: split the agent, refresh it, or replace its whitelist from the body.

    Every agent this touches becomes NEW: its messages are (re-)sent to the target's router.
    """
    if not mmagent:
        raise BadRequest("mmagent is required for PUT", fields="mmagent")
    repo.lock_topology()
    agents = load_agents(repo)
    agent = agents.get(mmagent)
    if agent is None:
        raise NotFound("Requested object not found")
    if split:
        stored = set(agents)
        for changed in split_agent(agent, agents, limits.max_topics):
            _to_send(changed)
            repo.agents.save(changed, is_new=changed.mmName not in stored)
        return presented(agent)
    if refresh:
        _to_send(agent)
        repo.agents.save(agent, is_new=False)
        return presented(agent)
    if body is None:
        raise BadRequest("missing required field", fields="MirrorMaker")
    if body.mmName != mmagent:
        raise BadRequest("mmagent query param does not match mmName in body", fields="mmName")
    agent.topics = list(dict.fromkeys(body.topics or []))
    _to_send(agent)
    repo.agents.save(agent, is_new=False)
    return presented(agent)


class Bridges:
    """The mirror-maker agents as ``/bridge`` reports and edits them; an edit (re-)sends their messages."""

    def __init__(self, db: Database, limits: BridgeLimits, routers: RouterProvisioner) -> None:
        self.unit = UnitOfWork(db, TopologyRepository)
        self.limits = limits
        self.routers = routers

    def report(
        self, mmagent: str | None, source: str | None, target: str | None, detail: bool
    ) -> list[BrTopic] | MirrorMaker:
        name = chosen_agent_name(mmagent, source, target)
        return self.unit.read(lambda repo: _report(repo, name, detail))

    def edit(
        self, mmagent: str | None, body: MirrorMaker | None, *, refresh: bool, split: bool
    ) -> MirrorMaker:
        edited = self.unit.write(
            lambda repo: _edit(repo, self.limits, mmagent, body, refresh=refresh, split=split), retry=False
        )
        name = edited.mmName or ""
        self.routers.provision_pending()
        agent = self.unit.read(lambda repo: repo.get(MIRROR_MAKERS, name))
        assert agent is not None, "agents are never deleted"
        return presented(agent)
