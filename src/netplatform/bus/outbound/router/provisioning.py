"""Topics, grants and mirror-agent messages, provisioned on the clusters' message routers (issue 14, 2),
and the topics' roles and memberships, provisioned in the authz service (issue 23, 2).

Every change to topics, clients, clusters, locations or bridges is stored first, in the
service object's own transaction, with what it affects marked NEW (a deleted client DELETED).
Then :class:`RouterProvisioner` tells the routers and the authz service and stores the outcome:
VALID when every call needed answered success, else INVALID with the reason (a DELETED client
stays DELETED, with the reason, until its grants and memberships are removed). No database
transaction is open while another service is called. A later PUT marks the objects NEW again,
and the background reconcile (:mod:`.verification`) retries everything INVALID or
DELETED and every removal the authz service or a router did not take, then verifies what is
VALID against what the routers report.

What is needed (reference 6.5, 8; authz.md 3): a cluster, when registered or changed, gets every
existing topic; a topic under the namespace root gets its publisher and subscriber roles in
authz; a client's cluster gets its topic, the topic's roles as producer and consumer, and the
client's grants (``pub`` -> producer, ``sub`` -> consumer, to ``clientRole``; a
``clientIdentity`` instead joins the topic's role of the action in authz, and is granted by name
only when the topic has no such role); a deleted client's grants and memberships are removed
unless another live client of the topic needs the same one (on that router, for grants); a
deleted topic's roles are deleted in authz; a bridge's target router gets the agent's
``createMirrorMaker`` and ``updateWhiteList`` messages on the bridge-admin topic, and the agent is
VALID only once that router lists it running with the whitelist sent
(``GET /internal/mirror-agents``).

One advisory lock (every instance) serialises the provisioning passes, like the topology lock
serialises the writes: an agent's messages are never sent from a stale read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from ....store.db import Database
from ....store.locks import LockNamespace, advisory_lock
from ....store.unit_of_work import UnitOfWork
from ...bridge_plans import PLACED, Topology, plan_bridges
from ...repository.router_removals import RouterRemovalRepository
from ...repository.rows import CLIENTS, CLUSTERS, MIRROR_MAKERS, TOPICS, Kind
from ...repository.topology import TopologyRepository
from ...roles import Membership, memberships_needed, memberships_of, topic_roles
from ...schemas import MirrorMaker, MrClient, MrCluster, Status, Topic, WireModel
from ..authz.client import AuthzCallFailed
from ..authz.provisioning import TopicRoles
from .client import RouterCallFailed, RouterClient
from .documents import (
    Grant,
    agent_messages,
    as_role,
    base_url,
    check_agent,
    grants_of,
    topic_document,
    topic_grants,
)

log = logging.getLogger(__name__)

CONFIRM_S = 8.0  # how long a target router may take to list an agent running as it was sent
CONFIRM_POLL_S = 0.1
# How long a client's router may take to admit its identity: a membership the bus adds at central
# reaches a site's replica within 2 s, and the router's ACL cache is a second more.
ACCESS_CONFIRM_S = 6.0
ACCESS_POLL_S = 0.2
VERB_OF_ACTION = {"pub": "publish to", "sub": "fetch from"}

NEW_ONLY = (Status.NEW.value,)
TO_RETRY = (Status.NEW.value, Status.INVALID.value)
WAITING = (Status.STAGED.value,)  # topics on no router yet: every pass tries to place them


def router_of(client: MrClient) -> str | None:
    """The base URL of the router the client was placed on (its topicURL without ``/events/<fqtn>``)."""
    suffix = f"/events/{client.fqtn}"
    url = client.topicURL
    if not url or not url.endswith(suffix):
        return None
    return url[: -len(suffix)]


def attempt(call: Callable[..., object], *args: Any) -> str | None:
    """None when ``call(*args)`` (router or authz calls) succeeded, else the reason."""
    try:
        call(*args)
    except (RouterCallFailed, AuthzCallFailed) as failure:
        return failure.message
    return None


@dataclass
class TopicState:
    topic: Topic
    clients: list[MrClient]
    topology: Topology
    agents: list[str]
    owned: set[str] = field(default_factory=set)  # the topic's roles the bus created (authz)
    clusters: list[MrCluster] = field(default_factory=list)
    # The routers that took the topic in this pass; None: its presence was not in question (a
    # VALID topic is on its routers, and the reconcile verifies it).
    holding: set[str] | None = None

    def unowned(self) -> list[str]:
        """The topic's roles the bus did not create (another's, or not created yet)."""
        return [role for role in topic_roles(self.topic) if role not in self.owned]

    def usable(self, grants: Iterable[Grant]) -> set[Grant]:
        """``grants`` without those of the topic's roles the bus did not create: a role someone
        else made is never granted on a router (issue 36, point 6)."""
        foreign = {as_role(role) for role in self.unowned()}
        return {grant for grant in grants if grant[1] not in foreign}

    def placed(self) -> list[MrClient]:
        return [client for client in self.clients if client.status in PLACED and router_of(client)]

    def deleted(self) -> list[MrClient]:
        return [client for client in self.clients if client.status == Status.DELETED.value]

    def pending(self, statuses: Collection[str]) -> bool:
        """The topic, or one of its clients, is in ``statuses`` (or a client is DELETED)."""
        if self.topic.status in statuses:
            return True
        return any(c.status in statuses or c.status == Status.DELETED.value for c in self.clients)

    def needed_grants(self, router: str) -> set[Grant]:
        """The grants ``router`` keeps: the topic's roles and those of its live clients there
        (never a role the bus did not create)."""
        needed = topic_grants(self.topic)
        for client in self.placed():
            if router_of(client) == router:
                needed |= grants_of(client, self.topic)
        return self.usable(needed)

    def needed_memberships(self) -> set[Membership]:
        """The memberships the topic's live clients add."""
        return memberships_needed(self.placed(), self.topic)

    def nowhere(self) -> tuple[Status, str] | None:
        """Point 5 of issue 38: a topic is VALID only once a registered cluster's router has it.
        STAGED while no cluster is registered, INVALID (with each cluster's reason) while none
        took it; None when one did (or it was not in question)."""
        if self.holding is None or self.holding:
            return None
        if not self.clusters:
            return Status.STAGED, "no message-router cluster is registered: the topic is on no router yet"
        why = "; ".join(
            f"cluster {cluster.svcLocationName}: {cluster.statusReason or cluster.status}"
            for cluster in self.clusters
        )
        return Status.INVALID, f"the topic is on no message router yet ({why})"


class RouterProvisioner:
    """Pushes topics, grants and agent messages to the routers, roles and memberships to authz,
    and stores the outcome."""

    def __init__(
        self,
        db: Database,
        client: RouterClient,
        roles: TopicRoles,
        central_cname: str | None,
        mirror_identity: str,
    ) -> None:
        self.db = db
        self.unit = UnitOfWork(db, TopologyRepository)
        self.revokes = UnitOfWork(db, RouterRemovalRepository)
        self.client = client
        self.roles = roles
        self.central_cname = central_cname
        # What the target routers' mirror agents publish as: granted producer on bridged topics.
        self.mirror_identity = mirror_identity

    # --- passes --------------------------------------------------------------------------------

    def provision_pending(self) -> None:
        """After a change: provision everything it marked NEW (or DELETED)."""
        self._pass(NEW_ONLY)

    def retry(self) -> None:
        """Retry everything not VALID, and the removals authz and the routers did not take (the
        background reconcile, :class:`.verification.RouterVerifier`, calls it)."""
        self._pass(TO_RETRY)
        self._retry_removals()
        self._retry_revokes()

    def _pass(self, statuses: Collection[str]) -> None:
        clusters, fqtns = self.unit.read(
            lambda repo: (
                [cluster.svcLocationName or "" for cluster in repo.routers.clusters_in(statuses)],
                repo.routers.topics_to_provision(statuses),
            )
        )
        for name in clusters:
            self.push_cluster(name)
        for fqtn in fqtns:
            self.provision_topic(fqtn, statuses)
        waiting = self.unit.read(lambda repo: repo.routers.keys_in(TOPICS, WAITING))
        for fqtn in waiting:
            if fqtn not in fqtns:
                self.provision_topic(fqtn, WAITING)
        agents = self.unit.read(lambda repo: repo.routers.agents_in(statuses))
        for name in agents:
            with self.lock():
                self._send_agent(name)

    def lock(self) -> AbstractContextManager[None]:
        return advisory_lock(self.db, LockNamespace.BUS_PROVISIONING)

    # --- clusters ------------------------------------------------------------------------------

    def push_cluster(self, location: str) -> None:
        """A registered (or changed) cluster: tell its router the bridge-admin topic (an answer
        is what makes the cluster VALID, even with no topic to push), then every existing topic;
        stop at the first failure."""
        with self.lock():
            setup = self.unit.read(lambda repo: read_cluster(repo, location))
            cluster = setup.cluster
            if cluster is None or cluster.status == Status.VALID.value:
                return
            reason = attempt(self.set_up_router, base_url(cluster), setup)
            status = Status.INVALID if reason else Status.VALID
            self.store_outcome(CLUSTERS, location, cluster, status, reason)

    def store_outcome(
        self, kind: Kind[Any], key: str, obj: WireModel, status: Status, reason: str | None
    ) -> None:
        """Store an outcome (``RouterStateRepository.set_outcome``) in a transaction of its own."""
        self.unit.write(lambda repo: repo.routers.set_outcome(kind, key, obj, status, reason), retry=False)

    def set_up_router(self, router: str, setup: RouterSetup, topics: Iterable[Topic] | None = None) -> None:
        """The router serves (its /health: a site whose replica of the central directory is past
        its bound does not), then its mirror settings, then every topic of ``setup`` or ``topics``
        (409: it has it already) with its roles' grants. A topic whose roles are not (yet) the
        bus's goes nowhere: without its grants its ACLs would admit everyone there."""
        self.client.health(router)
        self.client.tell_mirror_settings(router, setup.admin_topic, setup.sources)
        for topic in setup.topics if topics is None else topics:
            if not setup.owned.issuperset(topic_roles(topic)):
                continue  # its own provisioning says why, and spreads it once the roles are
            self.client.create_topic(router, topic_document(topic))
            self.grant_all(router, topic.fqtn or "", topic_grants(topic))

    def tell_sources(self, except_location: str | None = None) -> None:
        """Clusters changed: every other cluster's router learns the registered routers (the only
        sources its mirror agents may connect to) at once, not at the next reconcile; a router that
        does not take it leaves its cluster INVALID with the reason, for the reconcile to retry."""
        with self.lock():
            clusters, admin_topic = self.unit.read(
                lambda repo: (repo.list_all(CLUSTERS), repo.settings.get().bridgeAdminTopic or "")
            )
            sources = [base_url(cluster) for cluster in clusters]
            for cluster in clusters:
                location = cluster.svcLocationName or ""
                if location == except_location or cluster.status != Status.VALID.value:
                    continue  # the changed cluster is told by its own provisioning
                reason = attempt(self.client.tell_mirror_settings, base_url(cluster), admin_topic, sources)
                if reason:
                    why = f"the registered routers not told: {reason}"
                    self.store_outcome(CLUSTERS, location, cluster, Status.INVALID, why)

    def _spread_topic(self, state: TopicState) -> None:
        """A topic not yet VALID goes to every cluster's router, not only its clients' (a VALID
        cluster has every topic), with its roles' grants; a router that does not take it leaves
        its cluster INVALID with the reason, for the reconcile to retry. The routers that took
        it go to ``state.holding``."""
        served = {router_of(client) for client in state.placed()}
        state.holding = set()
        for cluster in state.clusters:
            router = base_url(cluster)
            if cluster.status != Status.VALID.value or router in served:
                continue
            # With the topic's role grants: a topic without any grant would admit everyone there.
            reason = attempt(self.prepare_router, router, state)
            if reason is None:
                state.holding.add(router)
                continue
            why = f"topic {state.topic.fqtn} not created: {reason}"
            self.store_outcome(CLUSTERS, cluster.svcLocationName or "", cluster, Status.INVALID, why)
            cluster.status, cluster.statusReason = Status.INVALID, why

    # --- topics and their clients --------------------------------------------------------------

    def provision_topic(self, fqtn: str, statuses: Collection[str]) -> None:
        """Push the topic and its clients, unless (read again under the lock) nothing of it is
        in ``statuses`` any more: a concurrent pass did it meanwhile. Without that check, N
        concurrent topic creations each pushed every topic the others had created too."""
        with self.lock():
            state = self.read_topic(fqtn)
            if state is None or not state.pending(statuses):
                return
            roles = attempt(self.roles.create, state.topic)
            state.owned = self.roles.owned(topic_roles(state.topic))
            if state.unowned():
                # A role authz did not say is the bus's (another's, or authz unreachable): the
                # topic goes to no router yet, whose ACL would otherwise stay open to everyone.
                reason = roles or f"the topic's roles {', '.join(state.unowned())} are not the bus's"
                granted: dict[str, str | None] = {c.mrClientId or "": reason for c in state.placed()}
            else:
                if state.topic.status != Status.VALID.value:
                    self._spread_topic(state)
                granted = self._grant_clients(state)
            revoked = self._revoke_deleted(state)
            for name in state.agents:
                self._send_agent(name)
            self._store_topic(state, roles, granted, revoked)

    def read_topic(self, fqtn: str) -> TopicState | None:
        def read(repo: TopologyRepository) -> TopicState | None:
            topic = repo.get(TOPICS, fqtn)
            if topic is None:
                return None
            clients = repo.routers.placed_clients(fqtn)
            topology = repo.topology(self.central_cname)
            agents = [agent.mmName or "" for agent in repo.agents.holding(fqtn)]
            owned = repo.roles.owned(topic_roles(topic))
            return TopicState(topic, clients, topology, agents, owned, repo.list_all(CLUSTERS))

        return self.unit.read(read)

    def _grant_clients(self, state: TopicState) -> dict[str, str | None]:
        """Create the topic on each client's router with the topic's role grants, then grant
        and add memberships per client; the reason per client id (the first call that failed)."""
        topic = state.topic
        fqtn = topic.fqtn or ""
        prepared: dict[str, str | None] = {}
        outcome: dict[str, str | None] = {}
        for client in state.placed():
            router = router_of(client) or ""
            if router not in prepared:
                prepared[router] = attempt(self.prepare_router, router, state)
                if prepared[router] is None and state.holding is not None:
                    state.holding.add(router)
            outcome[client.mrClientId or ""] = (
                prepared[router]
                or attempt(self.grant_all, router, fqtn, state.usable(grants_of(client, topic)))
                or attempt(self.roles.join, memberships_of(client, topic))
                or attempt(self.confirm_access, router, fqtn, client)
            )
        return outcome

    def confirm_access(
        self, router: str, fqtn: str, client: MrClient, wait_s: float = ACCESS_CONFIRM_S
    ) -> None:
        """Status is the truth (issue 38): the client's ``clientIdentity`` can actually publish
        (``pub``) or fetch (``sub``) the topic at its router, as the router decides a publish or
        fetch (``GET /internal/topics/{topic}/access``: the ACLs, and the roles the identity holds
        there, at a site from its replica of the central directory). Waits up to ``wait_s`` for
        a membership just added to reach the router; else fails with the router's reason."""
        identity = client.clientIdentity
        if not identity:
            return  # a role only: no identity to ask about
        for action in client.action or []:
            if action not in VERB_OF_ACTION:
                continue
            deadline = time.monotonic() + wait_s
            while (refused := self.client.access(router, fqtn, identity, action)) is not None:
                if time.monotonic() >= deadline:
                    raise RouterCallFailed(
                        f"{identity} cannot {VERB_OF_ACTION[action]} {fqtn} at the message router at"
                        f" {router}: {refused}"
                    )
                time.sleep(ACCESS_POLL_S)

    def prepare_router(self, router: str, state: TopicState) -> None:
        topic = state.topic
        self.client.create_topic(router, topic_document(topic))
        self.grant_all(router, topic.fqtn or "", state.usable(topic_grants(topic)))

    def _revoke_deleted(self, state: TopicState) -> dict[str, str | None]:
        """Remove what each deleted client added and no live client needs; the reason per client id."""
        topic = state.topic
        fqtn = topic.fqtn or ""
        needed_memberships = state.needed_memberships()
        outcome: dict[str, str | None] = {}
        for client in state.deleted():
            router = router_of(client)
            reason = None
            if router is not None:
                grants = grants_of(client, topic) - state.needed_grants(router)
                reason = attempt(self._revoke_all, router, fqtn, grants)
            leaving = memberships_of(client, topic) - needed_memberships
            outcome[client.mrClientId or ""] = reason or attempt(self.roles.leave, leaving)
        return outcome

    def grant_all(self, router: str, fqtn: str, grants: Iterable[Grant]) -> None:
        for kind, identity in sorted(grants):
            self.client.grant(router, fqtn, kind, identity)

    def _revoke_all(self, router: str, fqtn: str, grants: Iterable[Grant]) -> None:
        for kind, identity in sorted(grants):
            self.client.revoke(router, fqtn, kind, identity)

    def _store_topic(
        self,
        state: TopicState,
        roles: str | None,
        granted: dict[str, str | None],
        revoked: dict[str, str | None],
    ) -> None:
        topic = state.topic
        fqtn = topic.fqtn or ""
        plan = plan_bridges(fqtn, topic.replicationCase, topic.globalMrURL, state.clients, state.topology)

        nowhere = state.nowhere()

        def store(repo: TopologyRepository) -> None:
            failures = [reason for reason in (roles, plan.problem) if reason]
            for client in state.placed():
                reason = granted.get(client.mrClientId or "")
                status = Status.INVALID if reason else Status.VALID
                repo.routers.set_outcome(CLIENTS, client.mrClientId or "", client, status, reason)
                if reason:
                    failures.append(f"client {client.mrClientId}: {reason}")
            for client in state.deleted():
                reason = revoked.get(client.mrClientId or "")
                if reason is None:
                    repo.routers.drop_deleted_client(client.mrClientId or "")
                    continue
                repo.routers.set_outcome(CLIENTS, client.mrClientId or "", client, Status.DELETED, reason)
                failures.append(f"deleted client {client.mrClientId}: {reason}")
            for name in state.agents:
                agent = repo.get(MIRROR_MAKERS, name)
                if agent is not None and agent.status == Status.INVALID.value:
                    failures.append(f"mirror agent {name}: {agent.statusReason}")
            status = Status.INVALID if failures else Status.VALID
            if nowhere is not None:
                status = Status.INVALID if failures else nowhere[0]
                failures.insert(0, nowhere[1])
            repo.routers.set_outcome(TOPICS, fqtn, topic, status, "; ".join(failures) or None)

        self.unit.write(store, retry=False)

    # --- what clients that changed, and topics that went, leave behind -------------------------

    def revoke_replaced(self, before: MrClient) -> None:
        """A client was replaced: revoke what it granted before and remove the memberships it
        added, where no live client needs them now.

        A failure leaves the client INVALID with the reason; a grant the router did not revoke
        and a membership authz did not remove are kept and retried by the background reconcile.
        """
        with self.lock():
            state = self.read_topic(before.fqtn or "")
            if state is None:
                return
            router = router_of(before)
            revoked = None
            if router is not None:
                grants = grants_of(before, state.topic) - state.needed_grants(router)
                revoked = self._revoke_or_keep(router, before.fqtn or "", grants)
            leaving = memberships_of(before, state.topic) - state.needed_memberships()
            left = self.roles.leave_or_keep(state.topic.fqtn or "", leaving)
            reason = "; ".join(r for r in (revoked, left) if r)
            current = next((c for c in state.clients if c.mrClientId == before.mrClientId), None)
            if not reason or current is None:
                return
            message = f"what its previous form added is not removed: {reason}"
            self.store_outcome(CLIENTS, before.mrClientId or "", current, Status.INVALID, message)

    def retire_topic(self, topic: Topic, clients: Iterable[MrClient]) -> None:
        """The topic is gone: revoke its grants on its routers (the routers keep the topic) and
        delete its roles in authz (its memberships go with them); a revoke or a role deletion
        that fails is kept and retried by the background reconcile."""
        fqtn = topic.fqtn or ""
        with self.lock():
            for router, grants in _grants_by_router(topic, clients).items():
                reason = self._revoke_or_keep(router, fqtn, grants)
                if reason:
                    log.warning("topic %s gone, its grants on %s kept for now: %s", fqtn, router, reason)
            now = self.unit.read(lambda repo: repo.get(TOPICS, fqtn))  # created again meanwhile?
            self.roles.delete(topic, now)

    def _revoke_or_keep(self, router: str, fqtn: str, grants: Iterable[Grant]) -> str | None:
        """Revoke each grant; those the router did not take are kept to retry. The reasons, or None."""
        failed: list[tuple[Grant, str]] = []
        for kind, identity in sorted(grants):
            reason = attempt(self.client.revoke, router, fqtn, kind, identity)
            if reason:
                failed.append(((kind, identity), reason))
        if not failed:
            return None

        def keep(removals: RouterRemovalRepository) -> None:
            for (kind, identity), reason in failed:
                removals.remember(router, fqtn, kind, identity, reason)

        self.revokes.write(keep, retry=False)
        return "; ".join(dict.fromkeys(reason for _grant, reason in failed))

    def _retry_revokes(self) -> None:
        """The revokes routers did not take, again, unless a live client needs the grant now."""
        for removal in self.revokes.read(lambda removals: removals.pending()):
            with self.lock():
                state = self.read_topic(removal.fqtn)
                needed = state.needed_grants(removal.router) if state else set()
                reason = None
                if (removal.kind, removal.identity) not in needed:
                    args = (removal.router, removal.fqtn, removal.kind, removal.identity)
                    reason = attempt(self.client.revoke, *args)
                self._settle_revoke(removal.id, reason)

    def _settle_revoke(self, removal_id: int, reason: str | None) -> None:
        self.revokes.write(lambda removals: removals.settle(removal_id, reason), retry=False)

    def _retry_removals(self) -> None:
        for removal in self.roles.pending():
            with self.lock():
                state = self.read_topic(removal.fqtn)
                now, needed = (state.topic, state.needed_memberships()) if state else (None, set())
                reason = self.roles.retry(removal, now, needed)
                self.roles.settle(removal, reason)

    # --- mirror agents -------------------------------------------------------------------------

    def send_agents(self, names: Iterable[str]) -> None:
        for name in names:
            with self.lock():
                self._send_agent(name)

    def _send_agent(self, name: str) -> None:
        """Send the agent's messages unless it is VALID (call holding the provisioning lock)."""
        agent = self.unit.read(lambda repo: repo.get(MIRROR_MAKERS, name))
        if agent is None or agent.status == Status.VALID.value:
            return
        self.send_agent(agent)

    def send_agent(self, agent: MirrorMaker) -> str | None:
        """Send (or send again) the agent's messages and store the outcome; the reason it is
        INVALID, or None (call holding the provisioning lock)."""

        def read(repo: TopologyRepository) -> tuple[list[MrCluster], str, list[Topic | None]]:
            clusters = repo.list_all(CLUSTERS)
            admin_topic = repo.settings.get().bridgeAdminTopic or ""
            return clusters, admin_topic, [repo.get(TOPICS, fqtn) for fqtn in agent.topics or []]

        clusters, admin_topic, topics = self.unit.read(read)
        whitelist = [topic for topic in topics if topic is not None]
        reason = attempt(self._send, agent, clusters, admin_topic, whitelist)
        status = Status.INVALID if reason else Status.VALID
        self.store_outcome(MIRROR_MAKERS, agent.mmName or "", agent, status, reason)
        return reason

    def _send(
        self, agent: MirrorMaker, clusters: list[MrCluster], admin_topic: str, topics: list[Topic]
    ) -> None:
        target = cluster_named(clusters, agent.targetCluster)
        if target is None:
            raise RouterCallFailed(
                f"no message-router cluster with fqdn {agent.targetCluster} (the target) is registered"
            )
        if not admin_topic:
            raise RouterCallFailed("bridgeAdminTopic is not set in the bus settings")
        router = base_url(target)
        # The target makes the bridge-admin topic (never adopting one someone else made: 409) and
        # learns the registered routers, the only sources its agents connect to.
        told = self.client.tell_mirror_settings(
            router, admin_topic, [base_url(cluster) for cluster in clusters]
        )
        if told.get("adminTopic") != admin_topic:  # its environment names another: no agent would run
            raise RouterCallFailed(
                f"the message router at {router} defines its mirror agents on topic "
                f"{told.get('adminTopic')}, not on bridgeAdminTopic {admin_topic}"
            )
        # The copies land in topics that exist on the target, whether or not a client is there,
        # and an agent copies only into topics where its identity is a producer (docs/router.md).
        for topic in topics:
            self.client.create_topic(router, topic_document(topic))
            self.client.grant(router, topic.fqtn or "", "producers", self.mirror_identity)
        source = cluster_named(clusters, agent.sourceCluster)
        self.client.publish(router, admin_topic, agent_messages(agent, source, target))
        self._confirm(router, agent, admin_topic, base_url(source) if source else None)

    def _confirm(self, router: str, agent: MirrorMaker, admin_topic: str, source_url: str | None) -> None:
        """Status is the truth: sent messages are not a running agent. Wait (up to ``CONFIRM_S``)
        until the target router lists the agent running (its copies succeed) with the whitelist
        and source just sent; else fail with what the router lists (the background reconcile
        checks and sends again)."""
        deadline = time.monotonic() + CONFIRM_S
        name, whitelist = agent.mmName or "", agent.topics or []
        while True:
            listing = self.client.mirror_agents(router)
            check = check_agent(listing, name, whitelist, source_url, admin_topic)
            if check is None:
                return
            if check.final or time.monotonic() >= deadline:
                hint = (
                    ""
                    if source_url
                    else (
                        f" (no cluster {agent.sourceCluster}, the source, is registered:"
                        " the create message carried no sourceUrl)"
                    )
                )
                raise RouterCallFailed(f"the message router at {router} {check.reason}{hint}")
            time.sleep(CONFIRM_POLL_S)


@dataclass(frozen=True)
class RouterSetup:
    """What a cluster's router should have: every topic, the bridge-admin topic and the registered
    routers (the sources its mirror agents may connect to)."""

    cluster: MrCluster | None
    topics: list[Topic]
    admin_topic: str
    sources: list[str]
    owned: frozenset[str] = frozenset()  # the topics' roles the bus created (authz)


def read_cluster(repo: TopologyRepository, location: str) -> RouterSetup:
    """The cluster at ``location`` and what its router should have."""
    clusters = repo.list_all(CLUSTERS)
    topics = repo.list_all(TOPICS)
    return RouterSetup(
        next((cluster for cluster in clusters if cluster.svcLocationName == location), None),
        topics,
        repo.settings.get().bridgeAdminTopic or "",
        [base_url(cluster) for cluster in clusters],
        frozenset(repo.roles.owned(role for topic in topics for role in topic_roles(topic))),
    )


def cluster_named(clusters: list[MrCluster], fqdn: str | None) -> MrCluster | None:
    return next((cluster for cluster in clusters if cluster.fqdn == fqdn), None)


def _grants_by_router(topic: Topic, clients: Iterable[MrClient]) -> dict[str, set[Grant]]:
    """The grants of a topic and its clients, by the router each client was placed on."""
    found: dict[str, set[Grant]] = {}
    for client in clients:
        router = router_of(client)
        if router is not None:
            found.setdefault(router, topic_grants(topic)).update(grants_of(client, topic))
    return found
