"""The URLs a feed or subscription body links to, built from the service's public base URL."""

from __future__ import annotations


def feed_links(base: str, feed_id: int) -> dict[str, str]:
    return {
        "self": f"{base}/feed/{feed_id}",
        "publish": f"{base}/publish/{feed_id}",
        "subscribe": f"{base}/subscribe/{feed_id}",
        "log": f"{base}/feedlog/{feed_id}",
    }


def subscription_links(base: str, sub_id: int, feed_id: int) -> dict[str, str]:
    return {
        "self": f"{base}/subs/{sub_id}",
        "feed": f"{base}/feed/{feed_id}",
        "log": f"{base}/sublog/{sub_id}",
    }
