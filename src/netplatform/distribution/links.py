"""The URLs of feeds and subscriptions: the links their bodies carry (built from the service's
public base URL) and the feed or subscription number read back from a path."""

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


def positive_id(text: str) -> int | None:
    """A feed or subscription number from a URL: a positive integer of at most 9 digits, else None."""
    if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) == 0:
        return None
    return int(text)
