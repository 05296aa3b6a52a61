"""Bus objects as what the message routers are sent: topics, grants, mirror-agent messages.

Reference 6.5 (topic creation on the client's cluster, roles), 8 (the agent messages) and the
router's API (docs/router.md). No I/O here.
"""

from __future__ import annotations

import random
from typing import Any

from .schemas import MirrorMaker, MrClient, MrCluster, Topic

Grant = tuple[str, str]
"""(``producers`` or ``consumers``, identity or role)."""

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


def grants_of(client: MrClient) -> set[Grant]:
    """``pub`` -> producer grant, ``sub`` -> consumer grant, to ``clientRole`` when given, else identity."""
    grantee = client.clientRole or client.clientIdentity
    if not grantee:
        return set()
    return {(_KIND_OF_ACTION[action], grantee) for action in client.action or [] if action in _KIND_OF_ACTION}


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


def admin_topic_document(name: str) -> dict[str, Any]:
    return {
        "topicName": name,
        "topicDescription": "mirror-agent administration",
        "partitionCount": "1",
        "replicationCount": "1",
        "transactionEnabled": False,
    }
