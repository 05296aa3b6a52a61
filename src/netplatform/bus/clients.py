"""Message-router clients: checks, cluster matching, topicURL, and their CRUD (reference 6.5).

A client is matched to the cluster at its ``svcLocationName``; it is VALID (with a topicURL)
when both the site location and the cluster exist, else STAGED until they do.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..clock import now_ms, wire_now
from ..settings import Settings
from ..web.errors import BadRequest, NotFound
from . import repository as repo
from .bridges import Topology
from .checks import require
from .errors import missing_field
from .mirrors import BridgeBook, limits_of, recompute_topics
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
    """Set status, topicURL and reason from where the client is; True when anything changed."""
    before = (client.status, client.topicURL, client.statusReason)
    location = client.svcLocationName or ""
    cluster = topology.cluster_at(location)
    if location in topology.locations and cluster is not None:
        client.topicURL = f"{cluster.topicProtocol}://{cluster.fqdn}:{cluster.topicPort}/events/{client.fqtn}"
        client.status, client.statusReason = Status.VALID.value, None
    else:
        client.topicURL = None
        client.status = Status.STAGED.value
        client.statusReason = (
            f"MR_Cluster not found for svcLocation {location}"
            if cluster is None
            else f"svcLocation {location} does not exist"
        )
    return (client.status, client.topicURL, client.statusReason) != before


def add_client(session: Session, topology: Topology, body: MrClient, topic: Topic) -> MrClient:
    """Store a new client of the topic (the cluster at its location is known to exist)."""
    client = MrClient(
        fqtn=topic.fqtn,
        svcLocationName=body.svcLocationName,
        clientRole=body.clientRole,
        clientIdentity=body.clientIdentity,
        action=list(body.action or []),
    )
    evaluate(client, topology)
    client.mrClientId = repo.next_client_id(session, now_ms())
    client.lastMod = wire_now()
    repo.insert_object(session, repo.CLIENTS, client)
    return client


def create(session: Session, settings: Settings, body: MrClient) -> MrClient:
    check_client(body)
    repo.bus_settings(session, for_update=True)
    book = BridgeBook(session, limits_of(settings))
    require_cluster(book.topology, body.svcLocationName)
    topic = repo.get(session, repo.TOPICS, body.fqtn or "")
    if topic is None:
        raise NotFound(f"topic with fqtn {body.fqtn} not found", fields="fqtn")
    client = add_client(session, book.topology, body, topic)
    _recompute(book, topic)
    return client


def list_clients(session: Session) -> list[MrClient]:
    return repo.list_all(session, repo.CLIENTS)


def get(session: Session, client_id: str) -> MrClient:
    client = repo.get(session, repo.CLIENTS, client_id)
    if client is None:
        raise NotFound(f"mrClientId {client_id} not found", fields="mrClientId")
    return client


def replace(session: Session, settings: Settings, client_id: str, body: MrClient) -> MrClient:
    check_client(body)
    repo.bus_settings(session, for_update=True)
    client = get(session, client_id)
    client.clientRole = body.clientRole
    client.clientIdentity = body.clientIdentity
    client.action = list(body.action or [])
    client.svcLocationName = body.svcLocationName
    book = BridgeBook(session, limits_of(settings))
    evaluate(client, book.topology)
    client.lastMod = wire_now()
    repo.update_object(session, repo.CLIENTS, client_id, client)
    topic = repo.get(session, repo.TOPICS, client.fqtn or "")
    if topic is not None:
        _recompute(book, topic)
    return client


def remove(session: Session, settings: Settings, client_id: str) -> None:
    repo.bus_settings(session, for_update=True)
    client = get(session, client_id)
    repo.delete_object(session, repo.CLIENTS, client_id)
    topic = repo.get(session, repo.TOPICS, client.fqtn or "")
    if topic is not None:
        _recompute(BridgeBook(session, limits_of(settings)), topic)


def _recompute(book: BridgeBook, topic: Topic) -> None:
    book.settle(topic)
    book.save()


def topology_changed(session: Session, settings: Settings, location: str) -> None:
    """A site location or cluster changed: re-evaluate its clients, then recompute bridges."""
    limits = limits_of(settings)
    book = BridgeBook(session, limits)
    for client in repo.clients_at(session, location):
        if evaluate(client, book.topology):
            client.lastMod = wire_now()
            repo.update_object(session, repo.CLIENTS, client.mrClientId or "", client)
    recompute_topics(session, limits, repo.replicated_topics(session))
