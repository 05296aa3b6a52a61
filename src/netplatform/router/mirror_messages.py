"""The bridge-admin messages the bus controller sends a router's mirror agents (reference 8).

``{"messageID": .., "createMirrorMaker": {"name", "consumer", "producer", "numStreams", "sourceUrl"}}``
makes (or redefines) an agent; ``{"messageID": .., "updateWhiteList": {"name", "whitelist": "t1,t2"}}``
sets the topics it copies. ``sourceUrl`` (the source cluster's router base URL) is this
project's addition, needed here: the reference's agents read Kafka at ``consumer`` instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


class MalformedAdminMessage(ValueError):
    """A message on the bridge-admin topic that is neither a valid create nor a whitelist update."""


@dataclass(frozen=True)
class CreateAgent:
    name: str
    source_url: str
    consumer: str
    producer: str


@dataclass(frozen=True)
class UpdateWhitelist:
    name: str
    topics: tuple[str, ...]


AdminMessage = CreateAgent | UpdateWhitelist


def parse_admin_message(text: str) -> AdminMessage:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise MalformedAdminMessage(f"not JSON: {error}") from None
    if isinstance(document, dict) and isinstance(document.get("createMirrorMaker"), dict):
        return _create(document["createMirrorMaker"])
    if isinstance(document, dict) and isinstance(document.get("updateWhiteList"), dict):
        return _whitelist(document["updateWhiteList"])
    raise MalformedAdminMessage("neither createMirrorMaker nor updateWhiteList (an object) is present")


def _text(body: dict[str, Any], key: str, *, required: bool = True) -> str:
    value = body.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise MalformedAdminMessage(f"{key!r} must be a non-empty string")
    return value.strip()


def _name(body: dict[str, Any]) -> str:
    name = _text(body, "name")
    if len(name) > 255:
        raise MalformedAdminMessage("'name' is longer than 255 characters")
    return name


def _create(body: dict[str, Any]) -> CreateAgent:
    source_url = _text(body, "sourceUrl").rstrip("/")
    parts = urlsplit(source_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise MalformedAdminMessage(f"'sourceUrl' is not an http(s) URL: {source_url!r}")
    consumer, producer = _text(body, "consumer", required=False), _text(body, "producer", required=False)
    return CreateAgent(_name(body), source_url, consumer, producer)


def _whitelist(body: dict[str, Any]) -> UpdateWhitelist:
    topics = [topic.strip() for topic in _text(body, "whitelist", required=False).split(",")]
    unique = tuple(dict.fromkeys(topic for topic in topics if topic))  # order kept, duplicates dropped
    if any(len(topic) > 255 for topic in unique):
        raise MalformedAdminMessage("a whitelisted topic name is longer than 255 characters")
    return UpdateWhitelist(_name(body), unique)
