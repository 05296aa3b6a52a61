"""Topics: fqtn, default roles and replication, clients given in the body, bridges (reference 6.4).

A topic and its body clients are stored in one transaction: the first failing client aborts
the whole creation and nothing is stored.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..clock import wire_now
from ..settings import Settings
from ..web.errors import BadRequest, Conflict, NotFound
from . import repository as repo
from .checks import check_token, require, require_token
from .clients import add_client, check_client, require_cluster
from .fqtn import Naming, build_fqtn, default_roles, resolve_style
from .mirrors import BridgeBook, limits_of
from .replication import default_case, global_url, is_unspecified
from .schemas import BusSettings, Status, Topic

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


def _naming(bus: BusSettings, settings: Settings) -> Naming:
    return Naming(bus.topicNsRoot or "", bus.busName or "", settings.bus_project_id, settings.bus_topic_style)


def with_clients(session: Session, topic: Topic) -> Topic:
    topic.clients = repo.clients_of_topic(session, topic.fqtn or "")
    return topic


def list_topics(session: Session) -> list[Topic]:
    grouped = repo.clients_by_topic(session)
    topics = repo.list_all(session, repo.TOPICS)
    for topic in topics:
        topic.clients = grouped.get(topic.fqtn or "", [])
    return topics


def get(session: Session, fqtn: str) -> Topic:
    check_token(fqtn, "topicName")
    topic = repo.get(session, repo.TOPICS, fqtn)
    if topic is None:
        raise NotFound(f"topic with fqtn {fqtn} not found", fields="fqtn")
    return with_clients(session, topic)


def create(session: Session, settings: Settings, body: Topic, use_existing: bool) -> Topic:
    require_token(body.topicName, "topicName")
    require(body.topicDescription, "topicDescription")
    require(body.owner, "owner")
    bus = repo.bus_settings(session, for_update=True)
    if bus.version == "0":
        raise BadRequest("bus settings not initialised", fields="topicNsRoot")
    book = BridgeBook(session, limits_of(settings))
    naming = _naming(bus, settings)
    style = resolve_style(body.fqtnStyle, naming)
    case = body.replicationCase
    if is_unspecified(case):
        cluster_places = [cluster.svcLocationName or "" for cluster in book.topology.clusters]
        case = default_case(body.clients or [], book.topology.locations, cluster_places)
    fqtn = build_fqtn(body.topicName or "", style, body.version, naming)
    existing = repo.get(session, repo.TOPICS, fqtn)
    if existing is not None:
        if use_existing:
            return with_clients(session, existing)
        raise Conflict(f"topic already exists: {fqtn}", fields="fqtn")
    publisher_role, subscriber_role = default_roles(fqtn, naming.topic_ns_root)
    topic = Topic(
        fqtn=fqtn,
        topicName=body.topicName,
        topicDescription=body.topicDescription,
        owner=body.owner,
        tnxEnabled=body.tnxEnabled,
        formatUuid=body.formatUuid,
        version=body.version,
        fqtnStyle=style,
        replicationCase=case,
        globalMrURL=global_url(case or "", body.globalMrURL, settings.bus_global_host),
        partitionCount=body.partitionCount or settings.bus_default_partition_count,
        replicationCount=body.replicationCount or settings.bus_default_replication_count,
        publisherRole=publisher_role,
        subscriberRole=subscriber_role,
        status=Status.VALID,
        lastMod=wire_now(),
    )
    try:
        repo.insert_object(session, repo.TOPICS, topic)
    except repo.Duplicate:
        raise Conflict(f"topic already exists: {fqtn}", fields="fqtn") from None
    clients = []
    for entry in body.clients or []:
        check_client(entry, with_fqtn=False)
        require_cluster(book.topology, entry.svcLocationName)
        clients.append(add_client(session, book.topology, entry, topic))
    book.settle(topic)
    book.save()
    topic.clients = clients
    return topic


def update(session: Session, settings: Settings, fqtn: str, body: Topic) -> Topic:
    """Change the descriptive and replication fields; name, style, fqtn and clients stay."""
    repo.bus_settings(session, for_update=True)
    topic = repo.get(session, repo.TOPICS, fqtn)
    if topic is None:
        raise NotFound(f"topic with fqtn {fqtn} not found", fields="fqtn")
    given = body.model_fields_set
    for name in UPDATABLE:
        if name in given:
            setattr(topic, name, getattr(body, name))
    book = BridgeBook(session, limits_of(settings))
    clients = repo.clients_of_topic(session, fqtn)
    if is_unspecified(topic.replicationCase):
        cluster_places = [cluster.svcLocationName or "" for cluster in book.topology.clusters]
        topic.replicationCase = default_case(clients, book.topology.locations, cluster_places)
    topic.globalMrURL = global_url(topic.replicationCase or "", topic.globalMrURL, settings.bus_global_host)
    topic.lastMod = wire_now()
    book.recompute(topic)
    repo.update_object(session, repo.TOPICS, fqtn, topic)
    book.save()
    topic.clients = clients
    return topic


def delete(session: Session, settings: Settings, fqtn: str) -> None:
    repo.bus_settings(session, for_update=True)
    if repo.get(session, repo.TOPICS, fqtn) is None:
        raise NotFound(f"Topic {fqtn} does not exist", fields="fqtn")
    repo.delete_clients_of_topic(session, fqtn)
    book = BridgeBook(session, limits_of(settings))
    book.forget(fqtn)
    book.save()
    repo.delete_object(session, repo.TOPICS, fqtn)
