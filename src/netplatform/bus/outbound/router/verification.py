"""The background reconcile (issue 24, 3): retry what is not VALID, then verify what is.

A VALID object is a claim about a router: a cluster's router answers and has every topic; a
topic exists on each of its clients' routers with the grants it and its clients need; a mirror
agent runs on its target router, copying. Routers restart on empty databases and topics get
deleted by hand, so every ``bus_reconcile_s`` each VALID claim is compared with what the router
reports. What can be repaired is (the topic created again, a grant made again, the agent's
messages sent again) and logged; what cannot turns the object INVALID with the reason, and the
next pass retries it. An object found as provisioned gets ``lastVerified``.

One pass at a time across instances (an advisory lock); each object is checked under the
provisioning lock, so a verification never races a provisioning pass.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from ....store.locks import LockNamespace, advisory_lock
from ....store.unit_of_work import UnitOfWork
from ...repository.rows import CLIENTS, CLUSTERS, MIRROR_MAKERS, TOPICS, Kind
from ...repository.topology import TopologyRepository
from ...schemas import MirrorMaker, MrClient, MrCluster, Status, WireModel
from .client import RouterCallFailed
from .documents import base_url, check_agent
from .provisioning import RouterProvisioner, TopicState, attempt, cluster_named, read_cluster, router_of

log = logging.getLogger(__name__)


class RouterVerifier:
    def __init__(self, provisioner: RouterProvisioner) -> None:
        self.provisioner = provisioner
        self.db = provisioner.db
        self.unit = UnitOfWork(provisioner.db, TopologyRepository)
        self.client = provisioner.client

    def reconcile(self) -> None:
        """One background pass: retries, then verification; one instance at a time."""
        with advisory_lock(self.db, LockNamespace.BUS_RECONCILE, bounded=False):
            self.provisioner.retry()
            self.verify()

    def verify(self) -> None:
        clusters, topics, agents = self.unit.read(
            lambda repo: tuple(repo.routers.valid_keys(kind) for kind in (CLUSTERS, TOPICS, MIRROR_MAKERS))
        )
        for location in clusters:
            with self.provisioner.lock():
                self._verify_cluster(location)
        for fqtn in topics:
            with self.provisioner.lock():
                self._verify_topic(fqtn)
        for name in agents:
            with self.provisioner.lock():
                self._verify_agent(name)

    # --- clusters ------------------------------------------------------------------------------

    def _verify_cluster(self, location: str) -> None:
        setup = self.unit.read(lambda repo: read_cluster(repo, location))
        cluster = setup.cluster
        if cluster is None or cluster.status != Status.VALID.value:
            return
        router = base_url(cluster)
        missing: list[str] = []

        def check() -> None:
            self.client.health(router)  # down, or a site past its replica's bound: its reason
            have = self.client.topic_names(router)
            missing.extend(topic.fqtn or "" for topic in setup.topics if topic.fqtn not in have)
            # Again, every pass: a router restarted on an empty database forgot them, and the
            # registered routers may have changed.
            self.provisioner.set_up_router(router, setup, [t for t in setup.topics if t.fqtn in missing])

        reason = attempt(check)
        if missing and reason is None:
            log.warning("cluster %s: its router lacked topics %s; created them again", location, missing)
        if reason is None:
            self._verified(CLUSTERS, location, cluster)
        else:
            self.provisioner.store_outcome(CLUSTERS, location, cluster, Status.INVALID, reason)

    # --- topics and their clients --------------------------------------------------------------

    def _verify_topic(self, fqtn: str) -> None:
        state = self.provisioner.read_topic(fqtn)
        if state is None or state.topic.status != Status.VALID.value:
            return
        clients: dict[str, list[MrClient]] = defaultdict(list)
        for client in state.placed():
            if client.status == Status.VALID.value:
                clients[router_of(client) or ""].append(client)
        reasons = {router: attempt(self._repair_topic, state, router) for router in clients}
        outcome = {
            client.mrClientId or "": reasons[router] or attempt(self._admits, router, fqtn, client)
            for router, placed in clients.items()
            for client in placed
        }
        self._store(state, clients, outcome)

    def _admits(self, router: str, fqtn: str, client: MrClient) -> None:
        """The client's identity still can publish or fetch there (one question, no wait: a
        membership removed, a router that forgot a grant, a site's replica gone stale)."""
        self.provisioner.confirm_access(router, fqtn, client, wait_s=0)

    def _repair_topic(self, state: TopicState, router: str) -> None:
        """Create the topic again where the router lacks it, and grant again what it lacks."""
        fqtn = state.topic.fqtn or ""
        granted = self.client.granted(router, fqtn)
        if granted is None:
            log.warning("topic %s: the router at %s lacked it; created it again", fqtn, router)
            self.provisioner.prepare_router(router, state)
            granted = set()
        lacking = state.needed_grants(router) - granted
        if lacking:
            log.warning(
                "topic %s: the router at %s lacked grants %s; granted again", fqtn, router, sorted(lacking)
            )
            self.provisioner.grant_all(router, fqtn, lacking)

    def _store(
        self, state: TopicState, clients: dict[str, list[MrClient]], reasons: dict[str, str | None]
    ) -> None:
        """Each client's outcome (``reasons`` by client id), and the topic's."""
        topic, fqtn = state.topic, state.topic.fqtn or ""

        def store(repo: TopologyRepository) -> None:
            failures: list[str] = []
            for placed in clients.values():
                for client in placed:
                    key = client.mrClientId or ""
                    reason = reasons[key]
                    if reason is None:
                        repo.routers.mark_verified(CLIENTS, key, client)
                        continue
                    repo.routers.set_outcome(CLIENTS, key, client, Status.INVALID, reason)
                    failures.append(f"client {key}: {reason}")
            if failures:
                repo.routers.set_outcome(TOPICS, fqtn, topic, Status.INVALID, "; ".join(failures))
            else:
                repo.routers.mark_verified(TOPICS, fqtn, topic)

        self.unit.write(store, retry=False)

    # --- mirror agents -------------------------------------------------------------------------

    def _verify_agent(self, name: str) -> None:

        def read(repo: TopologyRepository) -> tuple[MirrorMaker | None, list[MrCluster], str]:
            return (
                repo.get(MIRROR_MAKERS, name),
                repo.list_all(CLUSTERS),
                repo.settings.get().bridgeAdminTopic or "",
            )

        agent, clusters, admin_topic = self.unit.read(read)
        if agent is None or agent.status != Status.VALID.value:
            return
        target, source = (
            cluster_named(clusters, agent.targetCluster),
            cluster_named(clusters, agent.sourceCluster),
        )
        finding = None
        if target is not None:
            try:
                listing = self.client.mirror_agents(base_url(target))
                source_url = base_url(source) if source else None
                check = check_agent(listing, name, agent.topics or [], source_url, admin_topic)
                finding = check.reason if check else None
            except RouterCallFailed as failure:
                finding = failure.message
        if target is not None and finding is None:
            self._verified(MIRROR_MAKERS, name, agent)
            return
        # Not running as sent: send again; send_agent stores VALID or INVALID.
        log.warning("mirror agent %s: %s; sending its messages again", name, finding or "no target cluster")
        if self.provisioner.send_agent(agent) is None:
            again = self.unit.read(lambda repo: repo.get(MIRROR_MAKERS, name))
            if again is not None:
                self._verified(MIRROR_MAKERS, name, again)

    def _verified(self, kind: Kind[Any], key: str, obj: WireModel) -> None:
        """Stamp ``lastVerified`` (``RouterStateRepository.mark_verified``) in a transaction of its own."""
        self.unit.write(lambda repo: repo.routers.mark_verified(kind, key, obj), retry=False)
