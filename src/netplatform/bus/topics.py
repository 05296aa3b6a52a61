"""Topics: fqtn, default roles and replication, clients given in the body, bridges (reference 6.4).

A topic and its body clients are stored in one transaction: the first failing client aborts
the whole creation and nothing is stored. Then the authz service (the topic's roles) and the
routers of the clients' clusters are told (:mod:`.outbound.router.provisioning`), and the answer shows
the outcome. A deleted topic's roles are deleted in authz.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..clock import wire_now
from ..settings import Settings
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest, Conflict, NotFound
from .bridges import BridgeBook, limits_of
from .bus_settings import UNINITIALISED
from .checks import check_token, require, require_token
from .clients import add_client, check_client, require_cluster
from .fqtn import Naming, build_fqtn, resolve_style
from .outbound.router.provisioning import RouterProvisioner
from .replication import default_case, global_url, is_unspecified
from .repository.rows import TOPICS, Duplicate
from .repository.topic_reads import TopicReader
from .repository.topology import TopologyRepository
from .roles import default_roles
from .schemas import BusSettings, MrClient, ReplicationCase, Status, Topic

UPDATABLE = (
    "topicDescription",
    "owner",
    "tnxEnabled",
    "formatUuid",
    "partitionCount",
    "replicationCount",
    "replicationCase",
    "globalMrURL",
)


def _not_found(fqtn: str) -> NotFound:
    return NotFound(f"topic with fqtn {fqtn} not found", fields="fqtn")


def _with_clients(repo: TopologyRepository, topic: Topic) -> Topic:
    topic.clients = repo.clients.of_topic(topic.fqtn or "")
    return topic


def _replication_case(
    book: BridgeBook, case: ReplicationCase | None, clients: list[MrClient]
) -> ReplicationCase:
    """The given case, or for an unspecified one the default from the clients' places (reference 6.3)."""
    if case is not None and not is_unspecified(case):
        return case
    cluster_places = [cluster.svcLocationName or "" for cluster in book.topology.clusters]
    return ReplicationCase(default_case(clients, book.topology.locations, cluster_places))


@dataclass(frozen=True)
class TopicDefaults:
    """What the service settings decide for a new topic: fqtn parts, style, global host, counts."""

    project_id: str
    default_style: str
    global_host: str
    partition_count: str
    replication_count: str

    @classmethod
    def of(cls, settings: Settings) -> TopicDefaults:
        return cls(
            settings.bus_project_id,
            settings.bus_topic_style,
            settings.bus_global_host,
            settings.bus_default_partition_count,
            settings.bus_default_replication_count,
        )

    def naming(self, bus: BusSettings) -> Naming:
        return Naming(bus.topicNsRoot or "", bus.busName or "", self.project_id, self.default_style)


class Topics:
    """Topics with their clients; every write holds the topology lock and recomputes the topic's bridges."""

    def __init__(self, db: Database, settings: Settings, routers: RouterProvisioner) -> None:
        self.unit = UnitOfWork(db, TopologyRepository)
        self.reader = TopicReader(self.unit)
        self.limits = limits_of(settings)
        self.defaults = TopicDefaults.of(settings)
        self.routers = routers

    def all(self) -> list[Topic]:
        grouped, topics = self.unit.read(lambda repo: (repo.clients.by_topic(), repo.list_all(TOPICS)))
        for topic in topics:
            topic.clients = grouped.get(topic.fqtn or "", [])
        return topics

    def get(self, fqtn: str) -> Topic:
        check_token(fqtn, "topicName")

        topic = self.reader.topic(fqtn)
        if topic is None:
            raise _not_found(fqtn)
        return topic

    def create(self, body: Topic, use_existing: bool) -> Topic:
        require_token(body.topicName, "topicName")
        require(body.topicDescription, "topicDescription")
        require(body.owner, "owner")
        fqtn = self.unit.write(lambda repo: self._create(repo, body, use_existing), retry=False).fqtn or ""
        self.routers.provision_pending()
        return self.get(fqtn)

    def _create(self, repo: TopologyRepository, body: Topic, use_existing: bool) -> Topic:
        repo.lock_topology()
        bus = repo.settings.get()
        if bus.version == UNINITIALISED:
            raise BadRequest("bus settings not initialised", fields="topicNsRoot")
        book = BridgeBook(repo, self.limits)
        naming = self.defaults.naming(bus)
        style = resolve_style(body.fqtnStyle, naming)
        case = _replication_case(book, body.replicationCase, body.clients or [])
        fqtn = build_fqtn(body.topicName or "", style, body.version, naming)
        existing = repo.get(TOPICS, fqtn)
        if existing is not None:
            if use_existing:
                return _with_clients(repo, existing)
            raise Conflict(f"topic already exists: {fqtn}", fields="fqtn")
        topic = self._new_topic(body, fqtn, style, case, naming.topic_ns_root)
        try:
            repo.insert(TOPICS, topic)
        except Duplicate:
            raise Conflict(f"topic already exists: {fqtn}", fields="fqtn") from None
        clients = []
        for entry in body.clients or []:
            check_client(entry, with_fqtn=False)
            require_cluster(book.topology, entry.svcLocationName)
            clients.append(add_client(repo, book.topology, entry, topic))
        book.settle(topic)
        book.save()
        topic.clients = clients
        return topic

    def _new_topic(self, body: Topic, fqtn: str, style: str, case: ReplicationCase, ns_root: str) -> Topic:
        publisher_role, subscriber_role = default_roles(fqtn, ns_root)
        return Topic(
            fqtn=fqtn,
            topicName=body.topicName,
            topicDescription=body.topicDescription,
            owner=body.owner,
            tnxEnabled=body.tnxEnabled,
            formatUuid=body.formatUuid,
            version=body.version,
            fqtnStyle=style,
            replicationCase=case,
            globalMrURL=global_url(case, body.globalMrURL, self.defaults.global_host),
            partitionCount=body.partitionCount or self.defaults.partition_count,
            replicationCount=body.replicationCount or self.defaults.replication_count,
            publisherRole=publisher_role,
            subscriberRole=subscriber_role,
            status=Status.NEW,
            lastMod=wire_now(),
        )

    def update(self, fqtn: str, body: Topic) -> Topic:
        """Change the descriptive and replication fields; name, style, fqtn and clients stay."""

        def update(repo: TopologyRepository) -> tuple[Topic, bool]:
            repo.lock_topology()
            topic = repo.get(TOPICS, fqtn)
            if topic is None:
                raise _not_found(fqtn)
            provisioned = topic.status == Status.VALID
            placement = (topic.replicationCase, topic.globalMrURL)
            for name in UPDATABLE:
                if name in body.model_fields_set:
                    setattr(topic, name, getattr(body, name))
            book = BridgeBook(repo, self.limits)
            clients = repo.clients.of_topic(fqtn)
            topic.replicationCase = _replication_case(book, topic.replicationCase, clients)
            topic.globalMrURL = global_url(
                topic.replicationCase, topic.globalMrURL, self.defaults.global_host
            )
            topic.lastMod = wire_now()
            book.recompute(topic, clients)
            # A provisioned topic whose placement stays as it was and whose recompute touched no
            # mirror agent (one with bridges always touches its agents: it is provisioned again)
            # needs nothing of the routers: they take a topic once (a second create is their
            # 409), so its other fields never reach them again. It stays VALID, and no
            # provisioning pass runs.
            unchanged = not book.changed and placement == (topic.replicationCase, topic.globalMrURL)
            if provisioned and unchanged and topic.status == Status.NEW:
                topic.status = Status.VALID
            repo.update(TOPICS, fqtn, topic)
            book.save()
            topic.clients = clients
            return topic, topic.status != Status.VALID

        topic, provision = self.unit.write(update, retry=False)
        if not provision:
            # The topic as this transaction stored it, with the clients it read: what a read
            # after the commit would show, without a second transaction.
            return topic
        self.routers.provision_pending()
        return self.get(fqtn)

    def delete(self, fqtn: str) -> None:
        def delete(repo: TopologyRepository) -> tuple[Topic, list[MrClient]]:
            repo.lock_topology()
            topic = repo.get(TOPICS, fqtn)
            if topic is None:
                raise NotFound(f"Topic {fqtn} does not exist", fields="fqtn")
            clients = repo.clients.of_topic(fqtn)
            repo.clients.delete_of_topic(fqtn)
            book = BridgeBook(repo, self.limits)
            book.forget(fqtn)
            book.save()
            repo.delete(TOPICS, fqtn)
            return topic, clients

        topic, clients = self.unit.write(delete, retry=False)
        self.routers.retire_topic(topic, clients)
        self.routers.provision_pending()
