"""The message router's wire format (issue 14, section 1)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
)

from ..web.text import StorableStr
from .errors import RouterError
from .topic_model import Acl, Topic

TOPIC_NAME_PATTERN = r"^[A-Za-z0-9._-]{1,249}$"
"""Kafka's rule for topic names, which the reference router (on Kafka) applies."""

TopicName = Annotated[str, StringConstraints(pattern=TOPIC_NAME_PATTERN)]
Identity = Annotated[StorableStr, StringConstraints(min_length=1, max_length=255)]
MAX_PARTITIONS = 1024
MAX_REPLICAS = 16


def _count(value: Any) -> Any:
    """A count may come as a JSON number or a JSON string of digits (the bus controller sends strings)."""
    if isinstance(value, str) and re.fullmatch(r"\s*\d{1,9}\s*", value):
        return int(value)
    if isinstance(value, bool):
        raise ValueError("a count is a number")
    return value


def _flag(value: Any) -> Any:
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def _count_schema(maximum: int) -> WithJsonSchema:
    number = {"type": "integer", "minimum": 1, "maximum": maximum}
    return WithJsonSchema({"anyOf": [number, {"type": "string", "pattern": r"^\s*\d{1,9}\s*$"}]})


PartitionCount = Annotated[
    int, BeforeValidator(_count), Field(ge=1, le=MAX_PARTITIONS), _count_schema(MAX_PARTITIONS)
]
ReplicationCount = Annotated[
    int, BeforeValidator(_count), Field(ge=1, le=MAX_REPLICAS), _count_schema(MAX_REPLICAS)
]


class TopicRequest(BaseModel):
    """POST /topics/create; unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")
    topicName: TopicName
    topicDescription: StorableStr | None = Field(None, max_length=10_000)
    partitionCount: PartitionCount = 1
    replicationCount: ReplicationCount = 1
    transactionEnabled: Annotated[bool, BeforeValidator(_flag)] = False

    def topic(self, owner: str) -> Topic:
        return Topic(
            name=self.topicName,
            description=self.topicDescription or "",
            owner=owner,
            txenabled=self.transactionEnabled,
            partition_count=self.partitionCount,
            replication_count=self.replicationCount,
        )


class AclBody(BaseModel):
    enabled: bool
    users: list[str]


class TopicBody(BaseModel):
    name: str
    description: str
    owner: str
    txenabled: bool
    readerAcl: AclBody
    writerAcl: AclBody


class TopicList(BaseModel):
    topics: list[str]


class GroupLag(BaseModel):
    name: str
    lag: int = Field(description="messages the group has still to fetch")


class GroupList(BaseModel):
    groups: list[GroupLag] = Field(description="every known consumer group of the topic, by name")


class AccessAnswer(BaseModel):
    """Whether an identity may publish or fetch a topic here (GET /internal/topics/{topic}/access)."""

    identity: str
    action: str = Field(description="`pub` (publish) or `sub` (fetch)")
    allowed: bool
    reason: str | None = Field(
        None, description="why not, as a publish or fetch would answer (null: allowed)"
    )


class PublishResult(BaseModel):
    count: int = Field(description="messages accepted")
    serverTimeMs: int = Field(description="time the router took, in milliseconds")


class PartialPublishResult(PublishResult):
    """A publish that stored only its first ``count`` messages (status 207): send the rest again."""

    error: RouterError = Field(description="why the messages after the first `count` were not stored")


class MirroredMessage(BaseModel):
    """One message of the internal read route, with its sequence number in the topic."""

    seq: int = Field(description="the message's sequence number; read on after it")
    message: str


CopyState = Literal["running", "failing", "starting"]


class MirroredTopicBody(BaseModel):
    """One whitelisted topic of a mirror agent: how far it is copied, and how its copies go."""

    position: int = Field(description="the last source sequence copied here")
    sourceHead: int | None = Field(
        description="the source's last sequence of the topic when last seen; null: not seen yet"
    )
    lag: int | None = Field(description="sourceHead - position: messages still to copy; null: unknown")
    state: CopyState = Field(
        description="running: the last copy attempt succeeded; failing: it failed (lastError says "
        "why); starting: no attempt since the agent's instance started it"
    )
    lastError: str | None = Field(description="why the last attempt failed; null while it succeeds")


class MirrorAgentBody(BaseModel):
    """One mirror agent as this router runs it (GET /internal/mirror-agents)."""

    name: str = Field(description="the agent's name (the bus controller's mmName)")
    source: str = Field(description="the source router's base URL, from the create message's sourceUrl")
    whitelist: list[str] = Field(description="the topics it copies, as the last whitelist message set them")
    state: Literal["running", "failing", "starting", "waiting"] = Field(
        description="running: an instance holds the agent and every whitelisted topic's last copy "
        "attempt succeeded; failing: some topic's last attempt failed; starting: held, but some "
        "topic has had no attempt yet; waiting: defined, but no instance holds it (yet)"
    )
    instance: str | None = Field(description="the instance (NETPLATFORM_INSTANCE_NAME) that runs it")
    positions: dict[str, int] = Field(description="per topic, the last source sequence copied here")
    lastError: str | None = Field(
        description="the most recent failure of a failing topic; null unless failing"
    )
    failingSince: str | None = Field(
        description="since when the agent fails (its earliest failing topic's first failure); "
        "null unless failing"
    )
    topics: dict[str, MirroredTopicBody] = Field(description="each whitelisted topic's copy status")


class MirrorAgentList(BaseModel):
    adminTopic: str | None = Field(
        description="the effective bridge-admin topic the agents are defined on; null: this router "
        "runs no agents"
    )
    agents: list[MirrorAgentBody] = Field(description="every agent defined on this router, by name")


MAX_SOURCES = 1000
SourceUrl = Annotated[
    StorableStr,
    StringConstraints(max_length=2048, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\s]+(/[^?#\s]*)?$"),
]


class MirrorSettingsRequest(BaseModel):
    """PUT /internal/mirror-settings: what the bus controller tells the router (the whole of it).
    Unknown keys are ignored, ``sourceUser`` and ``sourcePassword`` of earlier versions among
    them: no credential is told or stored, agents present the router's own."""

    model_config = ConfigDict(extra="ignore")
    adminTopic: Annotated[str, StringConstraints(pattern=r"^$|" + TOPIC_NAME_PATTERN)] = Field(
        description="the bridge-admin topic (the bus settings' bridgeAdminTopic); empty: none. The "
        "router makes it; a topic of that name it did not make is refused (409), never adopted"
    )
    sources: list[SourceUrl] = Field(
        default_factory=list,
        max_length=MAX_SOURCES,
        description="the base URLs of the routers of every cluster the bus controller registers: the "
        "only hosts this router's mirror agents may connect to (besides "
        "NETPLATFORM_ROUTER_MIRROR_SOURCES)",
    )


class MirrorSettingsBody(BaseModel):
    """GET /internal/mirror-settings; never a password."""

    adminTopic: str | None = Field(description="the effective bridge-admin topic; null: none")
    configuredAdminTopic: str | None = Field(description="what the bus controller stored; null: nothing")
    adminTopicOverride: bool = Field(
        description="NETPLATFORM_ROUTER_BRIDGE_ADMIN_TOPIC is set and wins over the stored topic"
    )
    sourceUser: str = Field(
        description="the identity mirror agents present to source routers: svc.mirror, or "
        "NETPLATFORM_ROUTER_MIRROR_USER"
    )
    sourceCredentialOverride: bool = Field(
        description="NETPLATFORM_ROUTER_MIRROR_USER is set and wins over svc.mirror's credential"
    )
    sources: list[str] = Field(
        description="the hosts mirror agents may connect to: what the bus controller told and "
        "NETPLATFORM_ROUTER_MIRROR_SOURCES, normalised (scheme://host:port[/path]), sorted"
    )


def _acl(acl: Acl) -> AclBody:
    return AclBody(enabled=acl.enabled, users=list(acl.users))


def render_topic(topic: Topic) -> dict[str, Any]:
    body = TopicBody(
        name=topic.name,
        description=topic.description,
        owner=topic.owner,
        txenabled=topic.txenabled,
        readerAcl=_acl(topic.reader_acl),
        writerAcl=_acl(topic.writer_acl),
    )
    return body.model_dump()
