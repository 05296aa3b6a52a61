"""The wire format of feeds, subscriptions, log records (spec 2.2) and the internal node API, for
rendering and OpenAPI.

Request bodies are read by :mod:`.lenient_json` (the reference's lenient reader with its exact
error texts); the request models here document them. Responses are built through the response
models, so what the service sends is what its OpenAPI document says.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..web.text import StorableStr
from .feed_model import Feed
from .links import feed_links, subscription_links
from .subscription_model import PASSWORD_MASK, Subscription


class EndpointIdentity(BaseModel):
    """An endpoint identity as answers show it: passwords are stored only as hashes, never shown."""

    id: str = Field(max_length=20)


class FeedAuthorizationBody(BaseModel):
    classification: str = Field(max_length=32)
    endpoint_ids: list[EndpointIdentity] = Field(min_length=1)
    endpoint_addrs: list[str] = Field(default_factory=list, description="IPv4/IPv6 hosts or addr/masklen")


class FeedLinks(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    self_: str = Field(alias="self")
    publish: str
    subscribe: str
    log: str


def _bounded(maximum: int, *, minimum: int = 0) -> str:
    """The pattern of a body string the reader takes: no NUL character, at most ``maximum`` long.

    The length is in the pattern too, so a generator working from the pattern keeps to it.
    """
    return f"^[^\\x00]{{{minimum},{maximum}}}$"


class EndpointIdentityIn(BaseModel):
    id: str = Field(max_length=20, pattern=_bounded(20))
    password: str = Field(max_length=32, pattern=_bounded(32))


class EndpointIdentityUpdateIn(BaseModel):
    id: str = Field(max_length=20, pattern=_bounded(20))
    password: str | None = Field(
        default=None,
        max_length=32,
        pattern=_bounded(32),
        description="Left out: this id keeps the password it has (an id the feed does not have needs one)",
    )


ADDRESS_DESCRIPTION = "An IPv4 or IPv6 host, or a network as address/masklen"


class FeedAuthorizationIn(BaseModel):
    classification: str = Field(max_length=32, pattern=_bounded(32))
    endpoint_ids: list[EndpointIdentityIn] = Field(min_length=1)
    endpoint_addrs: list[
        Annotated[
            str,
            Field(
                description=ADDRESS_DESCRIPTION,
                json_schema_extra={"anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]},
            ),
        ]
    ] = Field(default_factory=list)


class FeedAuthorizationUpdateIn(FeedAuthorizationIn):
    endpoint_ids: list[EndpointIdentityUpdateIn] = Field(min_length=1)  # type: ignore[assignment]


class FeedUpdateRequest(BaseModel):
    """A feed update: ``name`` must be the feed's own, ``version`` too when given."""

    name: str = Field(min_length=1, max_length=20, pattern=_bounded(20, minimum=1))
    version: str | None = Field(default=None, max_length=20, pattern=_bounded(20))
    description: str | None = Field(default=None, max_length=256, pattern=_bounded(256))
    business_description: str | None = Field(default=None, max_length=256, pattern=_bounded(256))
    authorization: FeedAuthorizationUpdateIn
    suspend: bool | None = None
    groupid: int | None = Field(default=None, ge=-(2**31), le=2**31 - 1)
    authz_instance: str | None = Field(default=None, max_length=256, pattern=_bounded(256))


class FeedRequest(FeedUpdateRequest):
    """A feed to create: the version and every endpoint's password are required."""

    version: str = Field(max_length=20, pattern=_bounded(20))
    authorization: FeedAuthorizationIn  # type: ignore[assignment]


class FeedBody(BaseModel):
    name: str
    version: str
    description: str
    business_description: str
    authorization: FeedAuthorizationBody
    suspend: bool
    groupid: int
    authz_instance: str
    publisher: str
    links: FeedLinks


class DeliveryBody(BaseModel):
    url: str = Field(max_length=256, pattern="^https://")
    user: str = Field(max_length=20)
    password: str | None = Field(
        default=None,
        max_length=32,
        description=f"The password only in the answer to the request that set it; to a writer otherwise"
        f" {PASSWORD_MASK} (sent back in an update, it keeps the password); left out for a reader",
    )
    use100: bool = False


class SubLinks(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    self_: str = Field(alias="self")
    feed: str
    log: str


class DeliveryIn(BaseModel):
    url: str = Field(
        max_length=256,
        pattern="^https://[A-Za-z0-9][A-Za-z0-9.-]{0,62}(:[1-9][0-9]{0,3})?(/[!-~]{0,160})?$",
        description="An https URL with a host (the pattern states a common subset)",
    )
    user: str = Field(max_length=20, pattern=_bounded(20))
    password: str = Field(max_length=32, pattern=_bounded(32))
    use100: bool = False


class SubscriptionRequest(BaseModel):
    delivery: DeliveryIn
    metadataOnly: bool
    groupid: int = Field(ge=-(2**31), le=2**31 - 1)
    follow_redirect: bool | None = None
    suspend: bool | None = None
    decompress: bool | None = None
    privilegedSubscriber: bool | None = None
    authz_instance: str | None = Field(default=None, max_length=256, pattern=_bounded(256))


class SubscriptionBody(BaseModel):
    delivery: DeliveryBody
    metadataOnly: bool
    groupid: int
    follow_redirect: bool
    suspend: bool
    decompress: bool
    privilegedSubscriber: bool
    authz_instance: str
    subscriber: str
    created_date: int
    links: SubLinks


class LogRecordBody(BaseModel):
    """One log record; members that do not apply to the record's type are left out."""

    type: str = Field(description="pub, del, exp or fwd (a forward to the delivering node)")
    date: str = Field(description="UTC, yyyy-MM-ddTHH:mm:ss.SSSZ")
    publishId: str
    requestURI: str
    method: str
    contentType: str | None = None
    contentLength: int | None = None
    sourceIP: str | None = None
    endpointId: str | None = None
    fileName: str | None = None
    statusCode: int | None = None
    deliveryId: str | None = None
    expiryReason: str | None = None
    attempts: int | None = None
    node: str | None = Field(
        None,
        description="The node that recorded it (published, forwarded, delivered): its "
        "NETPLATFORM_INSTANCE_NAME; an edge node's records are shipped to central with it",
    )


def render_feed(feed: Feed, base: str) -> dict[str, Any]:
    authorization = feed.authorization
    body = FeedBody(
        name=feed.name,
        version=feed.version,
        description=feed.description,
        business_description=feed.business_description,
        authorization=FeedAuthorizationBody(
            classification=authorization.classification,
            endpoint_ids=[EndpointIdentity(id=e.id) for e in authorization.endpoint_ids],
            endpoint_addrs=list(authorization.endpoint_addrs),
        ),
        suspend=feed.suspend,
        groupid=feed.groupid,
        authz_instance=feed.authz_instance,
        publisher=feed.publisher,
        links=FeedLinks.model_validate(feed_links(base, feed.id)),
    )
    return body.model_dump(by_alias=True, exclude_none=True)


def render_subscription(subscription: Subscription, base: str, password: str | None) -> dict[str, Any]:
    """The subscription as answered; ``password`` stands for the stored (sealed) delivery password:
    the password itself, the mask or None (left out), as the caller may see it."""
    fields = subscription.fields
    target = fields.delivery
    body = SubscriptionBody(
        delivery=DeliveryBody(url=target.url, user=target.user, password=password, use100=target.use100),
        metadataOnly=fields.metadata_only,
        groupid=fields.groupid,
        follow_redirect=fields.follow_redirect,
        suspend=fields.suspend,
        decompress=fields.decompress,
        privilegedSubscriber=fields.privileged,
        authz_instance=fields.authz_instance,
        subscriber=subscription.subscriber,
        created_date=subscription.created_date,
        links=SubLinks.model_validate(subscription_links(base, subscription.id, subscription.feed_id)),
    )
    return body.model_dump(by_alias=True, exclude_none=True)


# --- sites and nodes (spec 1.3): the internal API ------------------------------------------


class NodeBody(BaseModel):
    """A distribution node: an instance running distribution, as the registry knows it."""

    name: str = Field(description="The node's NETPLATFORM_INSTANCE_NAME")
    site: str = Field(description="Its site location (svcLocationName), NETPLATFORM_SITE")
    url: str = Field(description="Base URL of its distribution port (NETPLATFORM_NODE_URL)")
    fqdn: str = Field(description="host:port of url: the bus controller's /dr_nodes fqdn")
    started: str = Field(description="UTC, yyyy-MM-ddTHH:mm:ss.SSSZ")
    heartbeat: str = Field(description="Last heartbeat, UTC")
    up: bool = Field(description="Heartbeat younger than NETPLATFORM_NODE_DOWN_AFTER_S and not stopped")


SiteName = Annotated[StorableStr, Field(min_length=1, max_length=128)]


class IngressRouteRequest(BaseModel):
    sites: list[SiteName] = Field(
        min_length=1,
        max_length=64,
        description="Sites (svcLocationName) whose live nodes may take the publish",
    )


class IngressRouteBody(BaseModel):
    feedId: int
    publisher: str | None = Field(description="Endpoint id of the publisher; null: every publisher")
    sites: list[str]


class EgressRouteRequest(BaseModel):
    node: StorableStr = Field(min_length=1, max_length=128, description="Name of the delivering node")


class EgressRouteBody(BaseModel):
    subId: int
    node: str


class ForwardEnvelope(BaseModel):
    """What travels with a forwarded file in ``X-NETPLATFORM-FORWARD`` (JSON): who it is for and
    the publish as the receiving node accepted it."""

    publishId: StorableStr = Field(min_length=1, max_length=160)
    feedId: int = Field(ge=1, le=2**31 - 1)
    subId: int = Field(ge=1, le=2**31 - 1)
    fileId: StorableStr = Field(min_length=1)
    method: Literal["PUT", "DELETE"]
    publishedMs: int = Field(ge=0, le=2**62)
    headers: dict[StorableStr, StorableStr]
    fromNode: StorableStr = Field(max_length=128)


# --- sites on their own stores (distribution/sites/): central's side of its edges -----------


class NodeAnnouncement(BaseModel):
    """An edge node telling central where it is (its heartbeat there)."""

    site: SiteName
    url: Annotated[StorableStr, Field(min_length=1, max_length=512, description="Its NETPLATFORM_NODE_URL")]


class ProvisioningAnswer(BaseModel):
    generation: int = Field(description="The provisioning's generation now (moves on every change)")
    provisioning: dict[str, list[dict[str, Any]]] | None = Field(
        description="feeds, subscriptions, ingressRoutes, egressRoutes, nodes: the stored rows "
        "(endpoint passwords as hashes, delivery passwords sealed); null when the generation did "
        "not move past the one asked for"
    )


class ShippedLogs(BaseModel):
    """Log records an edge node ships to central, each with its id at that node."""

    node: Annotated[StorableStr, Field(min_length=1, max_length=128, description="The shipping node")]
    records: list[dict[str, Any]] = Field(max_length=1000)


class ShippedLogsAnswer(BaseModel):
    taken: int = Field(description="Records new here (the others were taken before)")
