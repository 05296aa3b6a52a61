"""Topics, grants and mirror-agent messages, provisioned on the clusters' message routers (issue 14, 2).

Every change to topics, clients, clusters, locations or bridges is stored first, in the
service object's own transaction, with what it affects marked NEW (a deleted client DELETED).
Then :class:`RouterProvisioner` tells the routers and stores the outcome: VALID when every
router call needed answered success, else INVALID with the reason (a DELETED client stays
DELETED, with the reason, until its grants are revoked). No database transaction is open while
a router is called. A later PUT marks the objects NEW again, and :meth:`RouterProvisioner.reconcile`
(run in the background by the app) retries everything INVALID or DELETED.

What is needed (reference 6.5, 8): a cluster, when registered or changed, gets every existing
topic; a client's cluster gets its topic and the client's grants (``pub`` -> producer, ``sub``
-> consumer, to ``clientRole`` else ``clientIdentity``); a deleted client's grants are revoked
unless another client of the topic on that router needs the same one; a bridge's target router
gets the agent's ``createMirrorMaker`` and ``updateWhiteList`` messages on the bridge-admin topic,
and the agent is VALID only once that router lists it running with the whitelist sent
(``GET /internal/mirror-agents``).

One advisory lock (every instance) serialises the provisioning passes, like the bus lock
serialises the writes: an agent's messages are never sent from a stale read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ..store.db import Database
from ..store.locks import advisory_lock
from .bridge_plans import PLACED, Topology, plan_bridges
from .bridges import load_topology
from .repository import rows
from .repository.bus_settings import bus_settings
from .repository.mirror_makers import agents_holding
from .repository.router_state import (
    agents_in,
    clusters_in,
    drop_deleted_client,
    placed_clients,
    set_outcome,
    topics_to_provision,
)
from .router_client import RouterCallFailed, RouterClient
from .router_documents import (
    Grant,
    admin_topic_document,
    agent_messages,
    base_url,
    check_agent,
    grants_of,
    topic_document,
)
from .schemas import MirrorMaker, MrClient, MrCluster, Status, Topic

log = logging.getLogger(__name__)

PROVISIONING_LOCK = 0x6270  # "bp": one provisioning pass at a time, across instances
RECONCILE_LOCK = 0x6272  # "br": one background reconcile at a time, across instances

CONFIRM_S = 5.0  # how long a target router may take to list an agent as it was sent
CONFIRM_POLL_S = 0.1

NEW_ONLY = (Status.NEW.value,)
TO_RETRY = (Status.NEW.value, Status.INVALID.value)


def router_of(client: MrClient) -> str | None:
    """The base URL of the router the client was placed on (its topicURL without ``/events/<fqtn>``)."""
    suffix = f"/events/{client.fqtn}"
    url = client.topicURL
    if not url or not url.endswith(suffix):
        return None
    return url[: -len(suffix)]


def _attempt(call: Callable[..., None], *args: Any) -> str | None:
    """None when ``call(*args)`` (router calls) succeeded, else the reason."""
    try:
        call(*args)
    except RouterCallFailed as failure:
        return failure.message
    return None


@dataclass
class TopicState:
    topic: Topic
    clients: list[MrClient]
    topology: Topology
    agents: list[str]

    def placed(self) -> list[MrClient]:
        return [client for client in self.clients if client.status in PLACED and router_of(client)]

    def deleted(self) -> list[MrClient]:
        return [client for client in self.clients if client.status == Status.DELETED.value]

    def pending(self, statuses: Collection[str]) -> bool:
        """The topic, or one of its clients, is in ``statuses`` (or a client is DELETED)."""
        if self.topic.status in statuses:
            return True
        return any(c.status in statuses or c.status == Status.DELETED.value for c in self.clients)

    def needed_grants(self, router: str, exclude: Collection[str] = ()) -> set[Grant]:
        """The grants the topic's live clients on ``router`` need."""
        needed: set[Grant] = set()
        for client in self.placed():
            if router_of(client) == router and client.mrClientId not in exclude:
                needed |= grants_of(client)
        return needed


class RouterProvisioner:
    """Pushes topics, grants and agent messages to the routers and stores the outcome."""

    def __init__(self, db: Database, client: RouterClient, central_cname: str | None) -> None:
        self.db = db
        self.client = client
        self.central_cname = central_cname

    # --- passes --------------------------------------------------------------------------------

    def provision_pending(self) -> None:
        """After a change: provision everything it marked NEW (or DELETED)."""
        self._pass(NEW_ONLY)

    def reconcile(self) -> None:
        """Retry everything not VALID; one instance at a time."""
        with advisory_lock(self.db, RECONCILE_LOCK, bounded=False):
            self._pass(TO_RETRY)

    def _pass(self, statuses: Collection[str]) -> None:
        with self.db.read() as session:
            clusters = [cluster.svcLocationName or "" for cluster in clusters_in(session, statuses)]
            fqtns = topics_to_provision(session, statuses)
        for name in clusters:
            self.push_cluster(name)
        for fqtn in fqtns:
            self.provision_topic(fqtn, statuses)
        with self.db.read() as session:
            agents = agents_in(session, statuses)
        for name in agents:
            with self._lock():
                self._send_agent(name)

    def _lock(self) -> AbstractContextManager[None]:
        return advisory_lock(self.db, PROVISIONING_LOCK)

    # --- clusters ------------------------------------------------------------------------------

    def push_cluster(self, location: str) -> None:
        """A registered (or changed) cluster gets every existing topic; stop at the first failure."""
        with self._lock():
            with self.db.read() as session:
                cluster = rows.get(session, rows.CLUSTERS, location)
                topics = rows.list_all(session, rows.TOPICS)
            if cluster is None or cluster.status == Status.VALID.value:
                return
            router = base_url(cluster)
            reason = _attempt(self._create_all, router, topics)
            with self.db.write() as session:
                status = Status.INVALID if reason else Status.VALID
                set_outcome(session, rows.CLUSTERS, location, cluster, status, reason)

    def _create_all(self, router: str, topics: Iterable[Topic]) -> None:
        for topic in topics:
            self.client.create_topic(router, topic_document(topic))

    # --- topics and their clients --------------------------------------------------------------

    def provision_topic(self, fqtn: str, statuses: Collection[str]) -> None:
        """Push the topic and its clients, unless (read again under the lock) nothing of it is
        in ``statuses`` any more: a concurrent pass did it meanwhile. Without that check, N
        concurrent topic creations each pushed every topic the others had created too."""
        with self._lock():
            state = self._read_topic(fqtn)
            if state is None or not state.pending(statuses):
                return
            granted = self._grant_clients(state)
            revoked = self._revoke_deleted(state)
            for name in state.agents:
                self._send_agent(name)
            self._store_topic(state, granted, revoked)

    def _read_topic(self, fqtn: str) -> TopicState | None:
        with self.db.read() as session:
            topic = rows.get(session, rows.TOPICS, fqtn)
            if topic is None:
                return None
            clients = placed_clients(session, fqtn)
            topology = load_topology(session, self.central_cname)
            agents = [agent.mmName or "" for agent in agents_holding(session, fqtn)]
        return TopicState(topic, clients, topology, agents)

    def _grant_clients(self, state: TopicState) -> dict[str, str | None]:
        """Create the topic on each client's router, then grant; the reason per client id."""
        topic = state.topic
        created: dict[str, str | None] = {}
        outcome: dict[str, str | None] = {}
        for client in state.placed():
            router = router_of(client) or ""
            if router not in created:
                created[router] = _attempt(self.client.create_topic, router, topic_document(topic))
            reason = created[router]
            if reason is None:
                grants = grants_of(client)
                reason = _attempt(self._grant_all, router, topic.fqtn or "", grants)
            outcome[client.mrClientId or ""] = reason
        return outcome

    def _revoke_deleted(self, state: TopicState) -> dict[str, str | None]:
        outcome: dict[str, str | None] = {}
        for client in state.deleted():
            router = router_of(client)
            if router is None:
                outcome[client.mrClientId or ""] = None
                continue
            grants = grants_of(client) - state.needed_grants(router)
            fqtn = state.topic.fqtn or ""
            outcome[client.mrClientId or ""] = _attempt(self._revoke_all, router, fqtn, grants)
        return outcome

    def _grant_all(self, router: str, fqtn: str, grants: Iterable[Grant]) -> None:
        for kind, identity in sorted(grants):
            self.client.grant(router, fqtn, kind, identity)

    def _revoke_all(self, router: str, fqtn: str, grants: Iterable[Grant]) -> None:
        for kind, identity in sorted(grants):
            self.client.revoke(router, fqtn, kind, identity)

    def _store_topic(
        self, state: TopicState, granted: dict[str, str | None], revoked: dict[str, str | None]
    ) -> None:
        topic = state.topic
        fqtn = topic.fqtn or ""
        plan = plan_bridges(fqtn, topic.replicationCase, topic.globalMrURL, state.clients, state.topology)
        failures = [plan.problem] if plan.problem else []
        with self.db.write() as session:
            for client in state.placed():
                reason = granted.get(client.mrClientId or "")
                status = Status.INVALID if reason else Status.VALID
                set_outcome(session, rows.CLIENTS, client.mrClientId or "", client, status, reason)
                if reason:
                    failures.append(f"client {client.mrClientId}: {reason}")
            for client in state.deleted():
                reason = revoked.get(client.mrClientId or "")
                if reason is None:
                    drop_deleted_client(session, client.mrClientId or "")
                    continue
                set_outcome(session, rows.CLIENTS, client.mrClientId or "", client, Status.DELETED, reason)
                failures.append(f"deleted client {client.mrClientId}: {reason}")
            for name in state.agents:
                agent = rows.get(session, rows.MIRROR_MAKERS, name)
                if agent is not None and agent.status == Status.INVALID.value:
                    failures.append(f"mirror agent {name}: {agent.statusReason}")
            status = Status.INVALID if failures else Status.VALID
            set_outcome(session, rows.TOPICS, fqtn, topic, status, "; ".join(failures) or None)

    # --- grants of clients that changed or went with their topic ------------------------------

    def revoke_replaced(self, before: MrClient) -> None:
        """A client was replaced: revoke what it granted before and no client needs now.

        A failure leaves the client INVALID with the reason (the old grants are not retried).
        """
        router = router_of(before)
        if router is None:
            return
        with self._lock():
            state = self._read_topic(before.fqtn or "")
            if state is None:
                return
            grants = grants_of(before) - state.needed_grants(router)
            reason = _attempt(self._revoke_all, router, before.fqtn or "", grants)
            current = next((c for c in state.clients if c.mrClientId == before.mrClientId), None)
            if reason is None or current is None:
                return
            with self.db.write() as session:
                message = f"grants of its previous form not revoked: {reason}"
                set_outcome(session, rows.CLIENTS, before.mrClientId or "", current, Status.INVALID, message)

    def revoke_all(self, fqtn: str, clients: Iterable[MrClient]) -> None:
        """The topic is gone: revoke its clients' grants, best effort (the router keeps the topic)."""
        with self._lock():
            for client in clients:
                router = router_of(client)
                if router is None:
                    continue
                reason = _attempt(self._revoke_all, router, fqtn, grants_of(client))
                if reason:
                    log.warning("topic %s gone, grants of %s kept: %s", fqtn, client.mrClientId, reason)

    # --- mirror agents -------------------------------------------------------------------------

    def send_agents(self, names: Iterable[str]) -> None:
        for name in names:
            with self._lock():
                self._send_agent(name)

    def _send_agent(self, name: str) -> None:
        """Send the agent's messages unless it is VALID (call holding the provisioning lock)."""
        with self.db.read() as session:
            agent = rows.get(session, rows.MIRROR_MAKERS, name)
            clusters = rows.list_all(session, rows.CLUSTERS)
            admin_topic = bus_settings(session).bridgeAdminTopic or ""
        if agent is None or agent.status == Status.VALID.value:
            return
        reason = _attempt(self._send, agent, clusters, admin_topic)
        with self.db.write() as session:
            status = Status.INVALID if reason else Status.VALID
            set_outcome(session, rows.MIRROR_MAKERS, name, agent, status, reason)

    def _send(self, agent: MirrorMaker, clusters: list[MrCluster], admin_topic: str) -> None:
        target = _cluster_named(clusters, agent.targetCluster)
        if target is None:
            raise RouterCallFailed(
                f"no message-router cluster with fqdn {agent.targetCluster} (the target) is registered"
            )
        if not admin_topic:
            raise RouterCallFailed("bridgeAdminTopic is not set in the bus settings")
        router = base_url(target)
        self.client.create_topic(router, admin_topic_document(admin_topic))
        source = _cluster_named(clusters, agent.sourceCluster)
        self.client.publish(router, admin_topic, agent_messages(agent, source, target))
        self._confirm(router, agent, admin_topic, base_url(source) if source else None)

    def _confirm(self, router: str, agent: MirrorMaker, admin_topic: str, source_url: str | None) -> None:
        """Status is the truth: sent messages are not a running agent. Wait (up to ``CONFIRM_S``)
        until the target router lists the agent running with the whitelist and source just sent;
        else fail with what the router lists (the background reconcile sends again)."""
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


def _cluster_named(clusters: list[MrCluster], fqdn: str | None) -> MrCluster | None:
    return next((cluster for cluster in clusters if cluster.fqdn == fqdn), None)
