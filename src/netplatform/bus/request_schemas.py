"""Request bodies as the OpenAPI document describes them: what the routes check, told up front.

Each wire model stays lenient (every field optional) so that a missing field is answered in the
reference's words (400 ``missing required field``, ``fields`` naming it) by the service objects;
these subclasses only add to the JSON schema which fields each operation needs, as non-null
strings (``^\\S+$`` where the service checks that), so that a client generated from the document
sends what the service accepts. Validation itself is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import Path
from pydantic import ConfigDict

from ..web.text import NO_NUL_PATTERN
from .schemas import BusSettings, DrNode, DrPub, DrSub, Feed, MrClient, MrCluster, SvcLocation, Topic

Schema = dict[str, Any]

TOKEN_PATTERN = "^[^\\s\\u0000\\u001c-\\u001f\\u0085]+$"  # noqa: S105 (a regular expression)
"""``^\\S+$`` as the routes check it (Python's ``\\s`` also takes U+001C-U+001F and U+0085,
which the ECMA ``\\s`` of JSON schema patterns does not), NUL excluded."""


def _requiring(
    *names: str, tokens: Sequence[str] = (), one_of: Sequence[str] = (), more: Schema | None = None
) -> ConfigDict:
    """The schema edit: ``names``, ``tokens`` and ``more`` required; at least one of ``one_of``."""

    def edit(schema: Schema) -> None:
        properties: Schema = schema.setdefault("properties", {})
        for name in (*names, *tokens, *one_of):
            title = properties.get(name, {}).get("title", name)
            properties[name] = {"type": "string", "title": title, "pattern": NO_NUL_PATTERN}
        for name in tokens:
            properties[name]["pattern"] = TOKEN_PATTERN
        properties.update(more or {})
        schema["required"] = [*tokens, *names, *(more or {})]
        if one_of:
            schema["anyOf"] = [{"required": [name]} for name in one_of]

    return ConfigDict(json_schema_extra=edit)


_ACTIONS: Schema = {
    "action": {"type": "array", "minItems": 1, "items": {"enum": ["pub", "sub", "view"]}, "title": "Action"}
}


class BusSettingsRequest(BusSettings):
    model_config = _requiring("drProvUrl", "topicNsRoot", "bridgeAdminTopic", tokens=["busName"])


class SvcLocationRequest(SvcLocation):
    model_config = _requiring("svcLocationName")


class DrNodeRequest(DrNode):
    model_config = _requiring("svcLocationName", "fqdn")


class MrClusterRequest(MrCluster):
    model_config = _requiring("svcLocationName", "fqdn")


class MrClusterReplacement(MrCluster):
    model_config = _requiring("svcLocationName")


class TopicRequest(Topic):
    model_config = _requiring("topicDescription", "owner", tokens=["topicName"])


class MrClientRequest(MrClient):
    model_config = _requiring(
        "fqtn", "svcLocationName", one_of=["clientRole", "clientIdentity"], more=_ACTIONS
    )


class FeedRequest(Feed):
    model_config = _requiring("feedName", "feedVersion", "owner", "asprClassification")


class DrPubRequest(DrPub):
    model_config = _requiring("svcLocationName", one_of=["feedId", "feedName"])


class DrSubRequest(DrSub):
    model_config = _requiring("svcLocationName", one_of=["feedId", "feedName"])


class DrSubReplacement(DrSub):
    model_config = _requiring("feedId", "svcLocationName")


REQUIRED_BODY: Schema = {"requestBody": {"required": True}}
"""``openapi_extra`` of a route whose body is required (absent: 400 ``missing required field``)."""

TokenPath = Annotated[str, Path(json_schema_extra={"pattern": TOKEN_PATTERN})]
"""A path segment the route checks against ``^\\S+$`` itself (400 in the reference's words)."""
