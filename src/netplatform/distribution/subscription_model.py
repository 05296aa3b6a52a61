"""Subscriptions: the fields a client may set, their rules (spec 2.2 and 8), and the stored subscription."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from ..web.errors import BadRequest
from .feed_model import DEFAULT_AUTHZ_INSTANCE
from .lenient_json import Document, limit_length


@dataclass(frozen=True)
class DeliveryTarget:
    """Where and how files are delivered: the subscription's ``delivery`` object."""

    url: str
    user: str
    password: str
    use100: bool


@dataclass(frozen=True)
class SubscriptionFields:
    delivery: DeliveryTarget
    metadata_only: bool
    groupid: int
    follow_redirect: bool
    suspend: bool
    decompress: bool
    privileged: bool
    authz_instance: str


@dataclass(frozen=True)
class Subscription:
    id: int
    feed_id: int
    fields: SubscriptionFields
    subscriber: str
    created_date: int


def parse_subscription(document: Document) -> SubscriptionFields:
    delivery = _parse_delivery(document.required_object("delivery"))
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


def _parse_delivery(document: Document) -> DeliveryTarget:
    url = document.required_string("url")
    if not url.startswith("https://"):
        raise BadRequest("delivery URL is not HTTPS")
    limit_length(url, 256, "delivery url field is too long")
    if not _is_valid_https_url(url):
        raise BadRequest("delivery URL is not a valid URL")
    return DeliveryTarget(
        url=url,
        user=limit_length(document.required_string("user"), 20, "delivery user field is too long"),
        password=limit_length(
            document.required_string("password"), 32, "delivery password field is too long"
        ),
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
