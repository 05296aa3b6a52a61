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

from ....store.locks import LockNamespace, advisory_lock
from ...repository import rows
from ...repository.bus_settings import bus_settings
from ...repository.router_state import mark_verified, set_outcome, valid_keys
from ...schemas import MrClient, Status
from .client import RouterCallFailed
from .documents import base_url, check_agent
from .provisioning import RouterProvisioner, TopicState, attempt, cluster_named, router_of

log = logging.getLogger(__name__)


class RouterVerifier:
    def __init__(self, provisioner: RouterProvisioner) -> None:
        self.provisioner = provisioner
        self.db = provisioner.db
        self.client = provisioner.client

    def reconcile(self) -> None:
        """One background pass: retries, then verification; one instance at a time."""
        with advisory_lock(self.db, LockNamespace.BUS_RECONCILE, bounded=False):
            self.provisioner.retry()
            self.verify()

    def verify(self) -> None:
        with self.db.read() as session:
            clusters = valid_keys(session, rows.CLUSTERS)
            topics = valid_keys(session, rows.TOPICS)
            agents = valid_keys(session, rows.MIRROR_MAKERS)
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
        with self.db.read() as session:
            cluster = rows.get(session, rows.CLUSTERS, location)
            topics = rows.list_all(session, rows.TOPICS)
            admin_topic = bus_settings(session).bridgeAdminTopic or ""
        if cluster is None or cluster.status != Status.VALID.value:
            return
        router = base_url(cluster)
        missing: list[str] = []

        def check() -> None:
            have = self.client.topic_names(router)
            missing.extend(topic.fqtn or "" for topic in topics if topic.fqtn not in have)
            # Again, every pass: a router restarted on an empty database forgot them.
            self.provisioner.set_up_router(router, [t for t in topics if t.fqtn in missing], admin_topic)

        reason = attempt(check)
        if missing and reason is None:
            log.warning("cluster %s: its router lacked topics %s; created them again", location, missing)
        with self.db.write() as session:
            if reason is None:
                mark_verified(session, rows.CLUSTERS, location, cluster)
            else:
                set_outcome(session, rows.CLUSTERS, location, cluster, Status.INVALID, reason)

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
        self._store(state, clients, reasons)

    def _repair_topic(self, state: TopicState, router: str) -> None:
        """Create the topic again where the router lacks it, and grant again what it lacks."""
        fqtn = state.topic.fqtn or ""
        granted = self.client.granted(router, fqtn)
        if granted is None:
            log.warning("topic %s: the router at %s lacked it; created it again", fqtn, router)
            self.provisioner.prepare_router(router, state.topic)
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
        topic, fqtn = state.topic, state.topic.fqtn or ""
        failures: list[str] = []
        with self.db.write() as session:
            for router, placed in clients.items():
                reason = reasons[router]
                for client in placed:
                    key = client.mrClientId or ""
                    if reason is None:
                        mark_verified(session, rows.CLIENTS, key, client)
                        continue
                    set_outcome(session, rows.CLIENTS, key, client, Status.INVALID, reason)
                    failures.append(f"client {key}: {reason}")
            if failures:
                set_outcome(session, rows.TOPICS, fqtn, topic, Status.INVALID, "; ".join(failures))
            else:
                mark_verified(session, rows.TOPICS, fqtn, topic)

    # --- mirror agents -------------------------------------------------------------------------

    def _verify_agent(self, name: str) -> None:
        with self.db.read() as session:
            agent = rows.get(session, rows.MIRROR_MAKERS, name)
            clusters = rows.list_all(session, rows.CLUSTERS)
            admin_topic = bus_settings(session).bridgeAdminTopic or ""
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
            with self.db.write() as session:
                mark_verified(session, rows.MIRROR_MAKERS, name, agent)
            return
        # Not running as sent: send again; send_agent stores VALID or INVALID.
        log.warning("mirror agent %s: %s; sending its messages again", name, finding or "no target cluster")
        if self.provisioner.send_agent(agent) is None:
            with self.db.read() as session:
                again = rows.get(session, rows.MIRROR_MAKERS, name)
            if again is not None:
                with self.db.write() as session:
                    mark_verified(session, rows.MIRROR_MAKERS, name, again)
