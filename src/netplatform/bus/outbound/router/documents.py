"""Bus objects as what the message routers are sent: topics, grants, mirror-agent messages.

Reference 6.5 (topic creation on the client's cluster, grants to roles and identities), 8 (the
agent messages) and the router's API (docs/router.md). No I/O here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ...roles import role_of_action
from ...schemas import MirrorMaker, MrClient, MrCluster, Topic

Grant = tuple[str, str]
"""(``producers`` or ``consumers``, an identity's name or ``role:<name>``)."""

ROLE_PREFIX = "role:"
"""The router's wire form of a role where identities are named too (docs/router.md, "Access"):
a grant of ``role:ops`` admits the holders of role ``ops``, a grant of ``ops`` the identity ``ops``."""


def as_role(name: str) -> str:
    return ROLE_PREFIX + name


_KIND_OF_ACTION = {"pub": "producers", "sub": "consumers"}
NUM_STREAMS = "10"
DEFAULT_SOURCE_PORT = "2181"
DEFAULT_TARGET_PORT = "9092"


def base_url(cluster: MrCluster) -> str:
    """The cluster's router: ``{topicProtocol}://{fqdn}:{topicPort}``."""
    return f"{cluster.topicProtocol}://{cluster.fqdn}:{cluster.topicPort}"


def topic_url(cluster: MrCluster, fqtn: str) -> str:
    return f"{base_url(cluster)}/events/{fqtn}"


def topic_document(topic: Topic) -> dict[str, Any]:
    """The create body; counts go as the strings the reference's controller sends."""
    return {
        "topicName": topic.fqtn,
        "topicDescription": topic.topicDescription or "",
        "partitionCount": topic.partitionCount or "1",
        "replicationCount": topic.replicationCount or "1",
        "transactionEnabled": (topic.tnxEnabled or "").lower() == "true",
    }


def grants_of(client: MrClient, topic: Topic) -> set[Grant]:
    """``pub`` -> producer grant, ``sub`` -> consumer grant: to the role ``clientRole`` when given;
    else to the identity ``clientIdentity``, unless the topic has the action's role (the identity
    becomes a member of that role instead, :func:`.roles.memberships_of`, and the role is granted)."""
    grants: set[Grant] = set()
    for action in client.action or []:
        kind = _KIND_OF_ACTION.get(action)
        if kind is None:
            continue
        if client.clientRole:
            grants.add((kind, as_role(client.clientRole)))
        elif client.clientIdentity and role_of_action(topic, action) is None:
            grants.add((kind, client.clientIdentity))
    return grants


def topic_grants(topic: Topic) -> set[Grant]:
    """The topic's own roles on each of its routers: publisherRole producer, subscriberRole consumer."""
    grants: set[Grant] = set()
    for action, kind in _KIND_OF_ACTION.items():
        role = role_of_action(topic, action)
        if role:
            grants.add((kind, as_role(role)))
    return grants


def _message(body_name: str, body: dict[str, str]) -> dict[str, Any]:
    return {"messageID": str(random.randint(0, 99999)), body_name: body}


def agent_messages(
    agent: MirrorMaker, source: MrCluster | None, target: MrCluster | None
) -> list[dict[str, Any]]:
    """The agent's ``createMirrorMaker`` and ``updateWhiteList`` messages (reference 8).

    The create message also carries the source router's base URL (``sourceUrl``, our addition,
    harmless to the reference's agents) when the source is a registered cluster.
    """
    source_port = (source.sourceReplicationPort if source else None) or DEFAULT_SOURCE_PORT
    target_port = (target.targetReplicationPort if target else None) or DEFAULT_TARGET_PORT
    create = {
        "name": agent.mmName or "",
        "consumer": f"{agent.sourceCluster}:{source_port}",
        "producer": f"{agent.targetCluster}:{target_port}",
        "numStreams": NUM_STREAMS,
    }
    if source is not None:
        create["sourceUrl"] = base_url(source)
    whitelist = {"name": agent.mmName or "", "whitelist": ",".join(agent.topics or [])}
    return [_message("createMirrorMaker", create), _message("updateWhiteList", whitelist)]


@dataclass(frozen=True)
class AgentCheck:
    """Why a router's list of mirror agents does not (yet) show an agent as it was sent.

    ``final``: waiting cannot help (the router reads another bridge-admin topic, or none)."""

    reason: str
    final: bool = False


def check_agent(
    listing: dict[str, Any], name: str, whitelist: list[str], source_url: str | None, admin_topic: str
) -> AgentCheck | None:
    """None when the router's list (GET /internal/mirror-agents) shows agent ``name`` running with
    ``whitelist`` (as a set: the router drops duplicates) and ``source_url`` (when one was sent)."""
    listed_topic = listing.get("adminTopic")
    if not listed_topic:
        return AgentCheck("runs no mirror agents (no bridge-admin topic is set on it)", final=True)
    if listed_topic != admin_topic:
        return AgentCheck(
            f"defines its mirror agents on topic {listed_topic}, not on bridgeAdminTopic {admin_topic}",
            final=True,
        )
    agent = next((a for a in listing["agents"] if isinstance(a, dict) and a.get("name") == name), None)
    if agent is None:
        return AgentCheck(f"does not list mirror agent {name}: its create message was not applied")
    if source_url is not None and agent.get("source") != source_url:
        return AgentCheck(f"lists mirror agent {name} with source {agent.get('source')}, not {source_url}")
    listed = agent.get("whitelist")
    wanted = {topic for topic in whitelist if topic}
    if not isinstance(listed, list) or set(listed) != wanted:
        return AgentCheck(
            f"lists mirror agent {name} with whitelist {_topics(listed)}, not {_topics(sorted(wanted))}"
        )
    state = agent.get("state")
    if state == "failing":
        since = f" since {agent['failingSince']}" if agent.get("failingSince") else ""
        error = agent.get("lastError") or "no reason given"
        # Final: the copies failed once they ran; the reconcile looks again on its next pass.
        return AgentCheck(f"lists mirror agent {name} as failing{since}: {error}", final=True)
    if state != "running":
        return AgentCheck(
            f"lists mirror agent {name} as {state}: {_STATE_MEANS.get(str(state), 'not copying')}"
        )
    return None


_STATE_MEANS = {
    "starting": "it has not tried every topic yet",
    "waiting": "no instance runs it",
}


def _topics(topics: object) -> str:
    return ",".join(str(t) for t in topics) if isinstance(topics, list) and topics else "(empty)"
