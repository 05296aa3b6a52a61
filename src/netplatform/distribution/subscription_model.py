"""Subscriptions: the fields a client may set, their rules (spec 2.2 and 8), and the stored subscription.

The delivery password is the one secret of a subscription the platform must present again (to
the subscriber, with every delivery), so it cannot be hashed: it is stored *sealed* with the
platform key (store/secrets.py) and opened only where it is presented (the delivery sender) or
checked (a privileged subscriber's acknowledgement). Answers never carry it but to the request
that set it; a writer sees :data:`PASSWORD_MASK` instead, which an update may send back to keep
the stored password (docs/distribution.md "Delivery passwords").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar
from urllib.parse import urlsplit

from ..web.errors import BadRequest
from .feed_model import DEFAULT_AUTHZ_INSTANCE
from .lenient_json import Document, limit_length

PASSWORD_MASK = "********"  # noqa: S105 - a placeholder, no password
"""What a writer reads instead of a delivery password; sent back in an update, it keeps the
stored one (a GET, modify, PUT cycle changes nothing it did not mean to)."""


@dataclass(frozen=True)
class DeliveryTarget:
    """Where and how files are delivered, as stored: the ``delivery`` object, its password sealed."""

    url: str
    user: str
    sealed_password: str
    use100: bool


@dataclass(frozen=True)
class DeliveryIn:
    """The ``delivery`` object of a create or update body: the password in clear, or None when an
    update sends back :data:`PASSWORD_MASK` (the stored password stays)."""

    url: str
    user: str
    password: str | None
    use100: bool


Delivery = TypeVar("Delivery", DeliveryTarget, DeliveryIn)
Other = TypeVar("Other", DeliveryTarget, DeliveryIn)


@dataclass(frozen=True)
class SubscriptionFields(Generic[Delivery]):
    """The fields a client sets: with a :class:`DeliveryIn` as a body says them, with a
    :class:`DeliveryTarget` as stored."""

    delivery: Delivery
    metadata_only: bool
    groupid: int
    follow_redirect: bool
    suspend: bool
    decompress: bool
    privileged: bool
    authz_instance: str

    def with_delivery(self, delivery: Other) -> SubscriptionFields[Other]:
        return SubscriptionFields(
            delivery=delivery,
            metadata_only=self.metadata_only,
            groupid=self.groupid,
            follow_redirect=self.follow_redirect,
            suspend=self.suspend,
            decompress=self.decompress,
            privileged=self.privileged,
            authz_instance=self.authz_instance,
        )


RequestedFields = SubscriptionFields[DeliveryIn]
StoredFields = SubscriptionFields[DeliveryTarget]


@dataclass(frozen=True)
class Subscription:
    id: int
    feed_id: int
    fields: StoredFields
    subscriber: str
    created_date: int


def stored_fields(requested: RequestedFields, sealed_password: str) -> StoredFields:
    """The fields to store: the request's, with the delivery password as sealed."""
    delivery = requested.delivery
    return requested.with_delivery(
        DeliveryTarget(delivery.url, delivery.user, sealed_password, delivery.use100)
    )


def parse_subscription(document: Document, *, creating: bool) -> RequestedFields:
    """The fields of a create or update body, validated; an update may send the mask back as the
    delivery password (None: keep the stored one), a create may not."""
    delivery = _parse_delivery(document.required_object("delivery"), creating=creating)
    # The wire name is metadataOnly; the spec's field name metadata_only is accepted on input.
    metadata_key = (
        "metadata_only"
        if document.has("metadata_only") and not document.has("metadataOnly")
        else ("metadataOnly")
    )
    return SubscriptionFields(
        delivery=delivery,
        metadata_only=document.required_bool(metadata_key),
        groupid=document.required_int("groupid"),
        follow_redirect=document.optional_bool("follow_redirect"),
        suspend=document.optional_bool("suspend"),
        decompress=document.optional_bool("decompress"),
        privileged=document.optional_bool("privilegedSubscriber"),
        authz_instance=limit_length(
            document.optional_string("authz_instance", DEFAULT_AUTHZ_INSTANCE),
            256,
            "authz_instance field is too long",
        ),
    )


def _parse_delivery(document: Document, *, creating: bool) -> DeliveryIn:
    url = document.required_string("url")
    if not url.startswith("https://"):
        raise BadRequest("delivery URL is not HTTPS")
    limit_length(url, 256, "delivery url field is too long")
    if not _is_valid_https_url(url):
        raise BadRequest("delivery URL is not a valid URL")
    user = limit_length(document.required_string("user"), 20, "delivery user field is too long")
    password = limit_length(document.required_string("password"), 32, "delivery password field is too long")
    if password == PASSWORD_MASK and creating:
        raise BadRequest(f"delivery password field is the mask {PASSWORD_MASK}: send the password itself")
    return DeliveryIn(
        url=url,
        user=user,
        password=None if password == PASSWORD_MASK else password,
        use100=document.optional_bool("use100"),
    )


def _is_valid_https_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    has_bad_characters = any(c.isspace() or not c.isprintable() for c in url)
    return bool(parts.hostname) and port != 0 and not has_bad_characters
