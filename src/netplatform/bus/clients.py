"""Message-router clients: checks, cluster matching, topicURL, and their service object (reference 6.5).

A client is matched to the cluster at its ``svcLocationName``; it is VALID (with a topicURL)
when both the site location and the cluster exist, else STAGED until they do.
"""

from __future__ import annotations

from ..clock import now_ms, wire_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest, NotFound
from .bridge_plans import PLACED, Topology
from .bridges import BridgeBook, BridgeLimits, recompute_topics
from .checks import require
from .errors import missing_field
from .outbound.router.documents import topic_url
from .outbound.router.provisioning import RouterProvisioner
from .repository.rows import CLIENTS, TOPICS
from .repository.topology import TopologyRepository
from .roles import memberships_of
from .schemas import MrClient, Status, Topic

ACTIONS = ("pub", "sub", "view")


def check_client(body: MrClient, *, with_fqtn: bool = True) -> None:
    if with_fqtn:
        require(body.fqtn, "fqtn")
    require(body.svcLocationName, "svcLocationName")
    if body.clientRole is None and body.clientIdentity is None:
        raise missing_field("clientRole or clientIdentity")
    if not body.action:
        raise missing_field("action")
    for action in body.action:
        if action not in ACTIONS:
            raise BadRequest(f"value '{action}' is not one of {', '.join(ACTIONS)}", fields="action")


def require_cluster(topology: Topology, location: str | None) -> None:
    if topology.cluster_at(location or "") is None:
        raise BadRequest(f"MR_Cluster alias not found for svcLocation: {location}", fields="svcLocationName")


def evaluate(client: MrClient, topology: Topology) -> bool:
    """Set status, topicURL and reason from where the client is; True when anything changed.

    A client placed at a (new) cluster is NEW until the router there has the topic and its
    grants (:mod:`.outbound.router.provisioning` makes it VALID or INVALID); a DELETED one stays so.
    """
    if client.status == Status.DELETED.value:
        return False
    before = (client.status, client.topicURL, client.statusReason)
    location = client.svcLocationName or ""
    cluster = topology.cluster_at(location)
    if location in topology.locations and cluster is not None:
        url = topic_url(cluster, client.fqtn or "")
        if client.topicURL != url or client.status not in PLACED:
            client.topicURL = url
            client.status, client.statusReason = Status.NEW, None
    else:
        client.topicURL = None
        client.status = Status.STAGED
        client.statusReason = (
            f"MR_Cluster not found for svcLocation {location}"
            if cluster is None
            else f"svcLocation {location} does not exist"
        )
    return (client.status, client.topicURL, client.statusReason) != before


def add_client(repo: TopologyRepository, topology: Topology, body: MrClient, topic: Topic) -> MrClient:
    """Store a new client of the topic (the cluster at its location is known to exist)."""
    client = MrClient(
        fqtn=topic.fqtn,
        svcLocationName=body.svcLocationName,
        clientRole=body.clientRole,
        clientIdentity=body.clientIdentity,
        action=list(body.action or []),
    )
    evaluate(client, topology)
    client.mrClientId = repo.settings.next_client_id(now_ms())
    client.lastMod = wire_now()
    repo.insert(CLIENTS, client)
    return client


def topology_changed(repo: TopologyRepository, limits: BridgeLimits, location: str) -> None:
    """A site location or cluster changed: re-evaluate its clients, then recompute bridges."""
    book = BridgeBook(repo, limits)
    for client in repo.clients.at(location):
        if evaluate(client, book.topology):
            client.lastMod = wire_now()
            repo.update(CLIENTS, client.mrClientId or "", client)
    recompute_topics(repo, limits, repo.clients.replicated_topics())


def _get(repo: TopologyRepository, client_id: str, *, changeable: bool = False) -> MrClient:
    """The client; one being deleted (DELETED) is still readable but no longer changeable."""
    client = repo.get(CLIENTS, client_id)
    if client is None or (changeable and client.status == Status.DELETED.value):
        raise NotFound(f"mrClientId {client_id} not found", fields="mrClientId")
    return client


def _topic(repo: TopologyRepository, fqtn: str | None) -> Topic | None:
    return repo.get(TOPICS, fqtn or "")


def _recompute(book: BridgeBook, topic: Topic) -> None:
    book.settle(topic)
    book.save()


class Clients:
    """The message-router clients; every write holds the topology lock and recomputes the topic's bridges.

    After the write the routers and the authz service are told (:mod:`.outbound.router.provisioning`)
    and the answer shows the outcome. A delete keeps the client DELETED until the router has
    revoked its grants and authz has removed its memberships.
    """

    def __init__(self, db: Database, limits: BridgeLimits, routers: RouterProvisioner) -> None:
        self.unit = UnitOfWork(db, TopologyRepository)
        self.limits = limits
        self.routers = routers

    def create(self, body: MrClient) -> MrClient:
        check_client(body)

        def create(repo: TopologyRepository) -> MrClient:
            repo.lock_topology()
            book = BridgeBook(repo, self.limits)
            require_cluster(book.topology, body.svcLocationName)
            topic = _topic(repo, body.fqtn)
            if topic is None:
                raise NotFound(f"topic with fqtn {body.fqtn} not found", fields="fqtn")
            client = add_client(repo, book.topology, body, topic)
            _recompute(book, topic)
            return client

        client = self.unit.write(create, retry=False)
        self.routers.provision_pending()
        return self.get(client.mrClientId or "")

    def all(self) -> list[MrClient]:
        return self.unit.read(lambda repo: repo.list_all(CLIENTS))

    def get(self, client_id: str) -> MrClient:
        return self.unit.read(lambda repo: _get(repo, client_id))

    def replace(self, client_id: str, body: MrClient) -> MrClient:
        check_client(body)

        def replace(repo: TopologyRepository) -> MrClient:
            repo.lock_topology()
            client = _get(repo, client_id, changeable=True)
            before = client.model_copy()
            client.clientRole = body.clientRole
            client.clientIdentity = body.clientIdentity
            client.action = list(body.action or [])
            client.svcLocationName = body.svcLocationName
            book = BridgeBook(repo, self.limits)
            evaluate(client, book.topology)
            client.lastMod = wire_now()
            repo.update(CLIENTS, client_id, client)
            topic = _topic(repo, client.fqtn)
            if topic is not None:
                _recompute(book, topic)
            return before

        before = self.unit.write(replace, retry=False)
        self.routers.provision_pending()
        self.routers.revoke_replaced(before)
        return self.get(client_id)

    def delete(self, client_id: str) -> None:
        def delete(repo: TopologyRepository) -> None:
            repo.lock_topology()
            client = _get(repo, client_id)
            topic = _topic(repo, client.fqtn)
            if client.topicURL is None and (topic is None or not memberships_of(client, topic)):
                # not on a router (now) and no membership to remove: nothing to take back
                repo.delete(CLIENTS, client_id)
            else:
                client.status, client.statusReason = Status.DELETED, "removing its grants and memberships"
                client.lastMod = wire_now()
                repo.update(CLIENTS, client_id, client)
            if topic is not None:
                _recompute(BridgeBook(repo, self.limits), topic)

        self.unit.write(delete, retry=False)
        self.routers.provision_pending()
