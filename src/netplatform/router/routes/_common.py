"""HTTP details the router's route modules share: reading published messages from a request
body, and watching for a client that leaves while its fetch waits."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from starlette.types import Receive

from ...web.errors import UnsupportedMediaType
from ...web.media import parse_media_type
from ...web.text import is_storable
from ..errors import bad_request, incorrect_json

JSON = "application/json"
TEXT = "text/plain"

PUBLISH_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            JSON: {
                "schema": {
                    "description": "an object (one message) or an array (one message per element)",
                    "anyOf": [{"type": "object"}, {"type": "array"}],
                }
            },
            TEXT: {"schema": {"type": "string", "description": "one message per line"}},
        },
    }
}


def messages_of(content_type: str | None, body: bytes) -> list[str]:
    """The messages a publish carries: each JSON element's text, or each non-empty line of text."""
    media_type, _params = parse_media_type(content_type)
    if media_type == JSON:
        messages = _json_messages(body)
    elif media_type == TEXT:
        messages = _text_messages(body)
    else:
        raise UnsupportedMediaType(f"Content-Type must be {JSON} or {TEXT}, not {media_type or 'absent'}")
    if not all(is_storable(message) for message in messages):
        raise bad_request("a message holds a NUL character or a lone surrogate")
    return messages


def _json_messages(body: bytes) -> list[str]:
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise incorrect_json(f"the body is not JSON: {error}") from error
    if isinstance(document, dict):
        return [_text(document)]
    if isinstance(document, list):
        return [_text(element) for element in document]
    raise incorrect_json("a JSON body is an object (one message) or an array (one message per element)")


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""Made once: json.dumps with these options builds an encoder per call, per message."""


def _text(element: Any) -> str:
    return _COMPACT.encode(element)


def _text_messages(body: bytes) -> list[str]:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise bad_request("the body is not UTF-8 text") from error
    return [line.removesuffix("\r") for line in text.split("\n") if line.removesuffix("\r")]


class Departure:
    """Watches a request's receive channel: ``gone`` is set once the client disconnects.

    A GET has no body, so after its one ``http.request`` message the server's next message is
    ``http.disconnect``, when the client closes the connection (or once the response is
    complete: stop() before that matters). Waiting on it is the only way to learn that a long
    poll lost its client: the server drops what is sent to a closed connection silently.
    """

    def __init__(self, receive: Receive) -> None:
        self.gone = asyncio.Event()
        self._task = asyncio.create_task(self._watch(receive), name="router-fetch-departure")

    async def _watch(self, receive: Receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        self.gone.set()

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
