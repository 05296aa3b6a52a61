"""The message router's wire format (issue 14, section 1)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, WithJsonSchema

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


class MirrorAgentBody(BaseModel):
    """One mirror agent as this router runs it (GET /internal/mirror-agents)."""

    name: str = Field(description="the agent's name (the bus controller's mmName)")
    source: str = Field(description="the source router's base URL, from the create message's sourceUrl")
    whitelist: list[str] = Field(description="the topics it copies, as the last whitelist message set them")
    state: Literal["running", "waiting"] = Field(
        description="running: an instance of this router holds the agent and copies its topics; "
        "waiting: defined, but no instance holds it (yet)"
    )
    instance: str | None = Field(description="the instance (NETPLATFORM_INSTANCE_NAME) that runs it")
    positions: dict[str, int] = Field(description="per topic, the last source sequence copied here")


class MirrorAgentList(BaseModel):
    adminTopic: str | None = Field(
        description="the bridge-admin topic the agents are defined on; null: this router runs no agents"
    )
    agents: list[MirrorAgentBody] = Field(description="every agent defined on this router, by name")


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
