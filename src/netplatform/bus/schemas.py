"""Wire models of spec 2.3 with the reference's exact field names (reference section 3).

Every field is optional on input (the domain checks what an operation requires, in the
reference's order, with its messages). Unknown input keys are ignored. Responses omit null
members; the boolean flags of a subscriber are always emitted. ``statusReason`` is our
addition: why an object is INVALID, STAGED or DELETED (absent when VALID).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ..web.text import StorableStr


def _as_text(value: Any) -> Any:
    """Numbers and booleans sent for string fields are taken as their text (``2`` -> ``"2"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


Text = Annotated[StorableStr, BeforeValidator(_as_text)]
"""A string field that also accepts numbers and booleans and refuses what no database stores."""


class Status(StrEnum):
    EMPTY = "EMPTY"
    NEW = "NEW"
    STAGED = "STAGED"
    VALID = "VALID"
    INVALID = "INVALID"
    DELETED = "DELETED"


class FqtnStyle(StrEnum):
    FQTN_NOT_SPECIFIED = "FQTN_NOT_SPECIFIED"
    FQTN_LEGACY_FORMAT = "FQTN_LEGACY_FORMAT"
    FQTN_PROJECTID_FORMAT = "FQTN_PROJECTID_FORMAT"
    FQTN_PROJECTID_VERSION_FORMAT = "FQTN_PROJECTID_VERSION_FORMAT"


class ReplicationCase(StrEnum):
    REPLICATION_NOT_SPECIFIED = "REPLICATION_NOT_SPECIFIED"
    REPLICATION_NONE = "REPLICATION_NONE"
    REPLICATION_EDGE_TO_CENTRAL = "REPLICATION_EDGE_TO_CENTRAL"
    REPLICATION_EDGE_TO_CENTRAL_TO_GLOBAL = "REPLICATION_EDGE_TO_CENTRAL_TO_GLOBAL"
    REPLICATION_CENTRAL_TO_EDGE = "REPLICATION_CENTRAL_TO_EDGE"
    REPLICATION_CENTRAL_TO_GLOBAL = "REPLICATION_CENTRAL_TO_GLOBAL"
    REPLICATION_GLOBAL_TO_CENTRAL = "REPLICATION_GLOBAL_TO_CENTRAL"
    REPLICATION_GLOBAL_TO_CENTRAL_TO_EDGE = "REPLICATION_GLOBAL_TO_CENTRAL_TO_EDGE"
    REPLICATION_EDGE_TO_FQDN = "REPLICATION_EDGE_TO_FQDN"
    REPLICATION_FQDN_TO_EDGE = "REPLICATION_FQDN_TO_EDGE"
    REPLICATION_FQDN_TO_GLOBAL = "REPLICATION_FQDN_TO_GLOBAL"
    REPLICATION_GLOBAL_TO_FQDN = "REPLICATION_GLOBAL_TO_FQDN"
    REPLICATION_EDGE_TO_FQDN_TO_GLOBAL = "REPLICATION_EDGE_TO_FQDN_TO_GLOBAL"
    REPLICATION_GLOBAL_TO_FQDN_TO_EDGE = "REPLICATION_GLOBAL_TO_FQDN_TO_EDGE"


class WireModel(BaseModel):
    """Base of every object: unknown keys ignored, lastMod and status on every object."""

    model_config = ConfigDict(extra="ignore", use_enum_values=True)

    lastMod: Text | None = Field(None, json_schema_extra={"format": "date-time"})
    status: Status | None = None


class BusSettings(WireModel):
    version: Text | None = None
    topicNsRoot: Text | None = None
    busName: Text | None = None
    drProvUrl: Text | None = None
    bridgeAdminTopic: Text | None = None
    loggingUrl: Text | None = None
    nodeKey: Text | None = None
    accessKeyOwner: Text | None = None


class SvcLocation(WireModel):
    svcLocationName: Text | None = None
    svcLayer: Text | None = None
    clli: Text | None = None
    cloudAvailabilityZone: Text | None = None
    subnet: Text | None = None
    central: bool = False
    local: bool = False

    @model_validator(mode="after")
    def _layer_flags(self) -> SvcLocation:
        """``central`` and ``local`` always follow ``svcLayer`` (input values are ignored)."""
        layer = self.svcLayer or ""
        self.central = "central" in layer
        self.local = "local" in layer
        return self


class DrNode(WireModel):
    fqdn: Text | None = None
    svcLocationName: Text | None = None
    hostName: Text | None = None
    version: Text | None = None
    statusReason: Text | None = None


class MrCluster(WireModel):
    svcLocationName: Text | None = None
    fqdn: Text | None = None
    topicProtocol: Text | None = None
    topicPort: Text | None = None
    replicationGroup: Text | None = None
    sourceReplicationPort: Text | None = None
    targetReplicationPort: Text | None = None
    statusReason: Text | None = None
    lastVerified: Text | None = Field(
        None,
        json_schema_extra={"format": "date-time"},
        description="when the background reconcile last found this object on its router(s) as it was "
        "provisioned (an addition to the wire format); null: never yet",
    )


class MrClient(WireModel):
    mrClientId: Text | None = None
    fqtn: Text | None = None
    svcLocationName: Text | None = None
    clientRole: Text | None = None
    clientIdentity: Text | None = None
    action: list[Text] | None = None
    topicURL: Text | None = None
    statusReason: Text | None = None
    lastVerified: Text | None = Field(
        None,
        json_schema_extra={"format": "date-time"},
        description="when the background reconcile last found this object on its router(s) as it was "
        "provisioned (an addition to the wire format); null: never yet",
    )


class Topic(WireModel):
    fqtn: Text | None = None
    topicName: Text | None = None
    topicDescription: Text | None = None
    owner: Text | None = None
    tnxEnabled: Text | None = None
    formatUuid: Text | None = None
    version: Text | None = None
    fqtnStyle: FqtnStyle | None = None
    replicationCase: ReplicationCase | None = None
    globalMrURL: Text | None = None
    partitionCount: Text | None = None
    replicationCount: Text | None = None
    publisherRole: Text | None = None
    subscriberRole: Text | None = None
    clients: list[MrClient] | None = None
    statusReason: Text | None = None
    lastVerified: Text | None = Field(
        None,
        json_schema_extra={"format": "date-time"},
        description="when the background reconcile last found this object on its router(s) as it was "
        "provisioned (an addition to the wire format); null: never yet",
    )


class MirrorMaker(WireModel):
    mmName: Text | None = None
    sourceCluster: Text | None = None
    targetCluster: Text | None = None
    topics: list[Text] | None = None
    topicCount: int | None = None
    whitelistUpdateJSON: Text | None = None
    statusReason: Text | None = None
    lastVerified: Text | None = Field(
        None,
        json_schema_extra={"format": "date-time"},
        description="when the background reconcile last found this object on its router(s) as it was "
        "provisioned (an addition to the wire format); null: never yet",
    )


class BrTopic(BaseModel):
    brSource: str
    brTarget: str
    mmAgentName: str
    topicCount: int


class DrPub(WireModel):
    pubId: Text | None = None
    feedId: Text | None = None
    svcLocationName: Text | None = None
    username: Text | None = None
    userpwd: Text | None = None
    # output only: where this publisher publishes (a node of its site when the site has nodes)
    publishURL: Text | None = None
    statusReason: Text | None = None
    # input only: find the feed by name (and version) when feedId is absent
    feedName: Text | None = Field(None, exclude=True)
    feedVersion: Text | None = Field(None, exclude=True)


class DrSub(WireModel):
    subId: Text | None = None
    feedId: Text | None = None
    svcLocationName: Text | None = None
    username: Text | None = None
    userpwd: Text | None = None
    deliveryURL: Text | None = None
    logURL: Text | None = None
    owner: Text | None = None
    use100: bool = False
    suspended: bool = False
    privilegedSubscriber: bool = False
    decompress: bool = False
    guaranteedDelivery: bool = False
    guaranteedSequence: bool = False
    statusReason: Text | None = None
    feedName: Text | None = Field(None, exclude=True)
    feedVersion: Text | None = Field(None, exclude=True)


class Feed(WireModel):
    feedId: Text | None = None
    feedName: Text | None = None
    feedVersion: Text | None = None
    feedDescription: Text | None = None
    owner: Text | None = None
    asprClassification: Text | None = None
    publishURL: Text | None = None
    subscribeURL: Text | None = None
    logURL: Text | None = None
    formatUuid: Text | None = None
    suspended: bool | None = None
    pubs: list[DrPub] | None = None
    subs: list[DrSub] | None = None
    statusReason: Text | None = None
