"""Bus objects as the distribution service's JSON documents, and its answers back (reference 7)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...schemas import DrPub, DrSub, Feed


def last_segment(url: str | None) -> str | None:
    """The text after the last ``/`` of a link: the id the distribution service gave."""
    if not url:
        return None
    return url.rstrip("/").rsplit("/", 1)[-1] or None


def feed_document(feed: Feed, pubs: Iterable[DrPub]) -> dict[str, Any]:
    """One endpoint identity per publisher of the feed."""
    return {
        "name": feed.feedName,
        "version": feed.feedVersion,
        "description": feed.feedDescription or "",
        "suspend": bool(feed.suspended),
        "authorization": {
            "classification": feed.asprClassification,
            "endpoint_addrs": [],
            "endpoint_ids": [{"id": pub.username, "password": pub.userpwd} for pub in pubs],
        },
    }


def accept_feed(feed: Feed, answer: dict[str, Any]) -> None:
    links = answer.get("links") or {}
    authorization = answer.get("authorization") or {}
    feed.feedName = answer.get("name", feed.feedName)
    feed.feedVersion = answer.get("version", feed.feedVersion)
    feed.feedDescription = answer.get("description", feed.feedDescription)
    feed.owner = answer.get("publisher", feed.owner)
    feed.suspended = bool(answer.get("suspend", feed.suspended))
    feed.asprClassification = authorization.get("classification", feed.asprClassification)
    feed.publishURL = links.get("publish")
    feed.subscribeURL = links.get("subscribe")
    feed.logURL = links.get("log")
    feed.feedId = last_segment(links.get("publish")) or feed.feedId


def subscription_document(sub: DrSub) -> dict[str, Any]:
    return {
        "suspend": sub.suspended,
        "delivery": {
            "url": sub.deliveryURL,
            "user": sub.username,
            "password": sub.userpwd,
            "use100": sub.use100,
        },
        "metadataOnly": False,
        "groupid": 0,
        "follow_redirect": True,
        "privilegedSubscriber": sub.privilegedSubscriber,
        "decompress": sub.decompress,
    }


def accept_subscription(sub: DrSub, answer: dict[str, Any]) -> None:
    """Rebuild the subscriber from the answer; its svcLocationName stays the request's, and so does
    its ``userpwd``: the password the bus sent is the one it knows, and an answer may mask it."""
    links = answer.get("links") or {}
    delivery = answer.get("delivery") or {}
    sub.owner = answer.get("subscriber", sub.owner)
    sub.suspended = bool(answer.get("suspend", sub.suspended))
    sub.feedId = last_segment(links.get("feed")) or sub.feedId
    sub.subId = last_segment(links.get("self")) or sub.subId
    sub.logURL = links.get("log", sub.logURL)
    sub.deliveryURL = delivery.get("url", sub.deliveryURL)
    sub.username = delivery.get("user", sub.username)
    sub.use100 = bool(delivery.get("use100", sub.use100))
    sub.privilegedSubscriber = bool(answer.get("privilegedSubscriber", sub.privilegedSubscriber))
    sub.decompress = bool(answer.get("decompress", sub.decompress))
