"""One forwarding hop (spec 1.3, egress routes): the file, sent to the node that delivers it.

``PUT <node url>/internal/forward/<publish id>`` as this node's identity (the platform's own
``svc.node``, or ``NETPLATFORM_NODE_USER``: :func:`.nodes.node_identity`), which the receiving
node requires to hold ``platform.node``, only to the URL that node registered for itself and,
over HTTPS, only once its certificate is verified (the delivery engine's client session, which it
is given; redirects are not followed); the spooled bytes as
they were published (no decompression: the delivering node does that), and the
:class:`~.schemas.ForwardEnvelope` in ``X-NETPLATFORM-FORWARD``: subscription, feed, file name,
method, publish time and the captured headers. The target answers 2xx only once the file is
durable there and queued; anything else, or no answer, is retried with the subscription's backoff.
"""

from __future__ import annotations

import json
import logging
import ssl
from urllib.parse import quote

import aiohttp
import anyio
from yarl import URL

from ..store.blobs import BlobStore
from ..web.auth import basic_header
from .attempts import Attempt
from .file_headers import CONTENT_TYPE
from .log_model import NO_STATUS
from .repository.queue import DeliveryJob, NextHop
from .schemas import ForwardEnvelope

log = logging.getLogger("netplatform.distribution.forward")

FORWARD_HEADER = "X-NETPLATFORM-FORWARD"
FORWARD_PATH = "/internal/forward"
_MAX_ANSWER_BYTES = 64 * 1024


def forward_url(base: str, publish_id: str) -> str:
    return f"{base.rstrip('/')}{FORWARD_PATH}/{quote(publish_id, safe='')}"


def envelope_of(job: DeliveryJob, from_node: str) -> ForwardEnvelope:
    spooled = job.file
    return ForwardEnvelope(
        publishId=spooled.publish_id,
        feedId=spooled.feed_id,
        subId=job.subscription.id,
        fileId=spooled.file_id,
        method="PUT" if spooled.method == "PUT" else "DELETE",
        publishedMs=spooled.published_ms,
        headers=spooled.headers,
        fromNode=from_node,
    )


class ForwardSender:
    def __init__(
        self, session: aiohttp.ClientSession, blobs: BlobStore, node: str, credentials: tuple[str, str]
    ) -> None:
        self.session = session
        self.blobs = blobs
        self.node = node
        self.authorization = basic_header(*credentials)

    async def send(self, job: DeliveryJob, hop: NextHop) -> Attempt:
        spooled = job.file
        has_body = spooled.method == "PUT" and (spooled.blob is not None or spooled.body is not None)
        url = forward_url(hop.url or f"unknown-node://{hop.node}", spooled.publish_id)
        attempt = Attempt(
            url=url,
            method=spooled.method,
            file_name=spooled.file_id,
            content_type=spooled.headers.get(CONTENT_TYPE) if has_body else None,
            content_length=spooled.content_length if has_body else 0,
            status=NO_STATUS,
        )
        if hop.url is None:
            log.warning("forward of %s: node %s has never registered", spooled.publish_id, hop.node)
            return attempt
        headers = {
            "Authorization": self.authorization,
            # ASCII JSON: header values travel as latin-1, so every other character is escaped.
            FORWARD_HEADER: json.dumps(envelope_of(job, self.node).model_dump(), ensure_ascii=True),
            "Content-Type": "application/octet-stream",
        }
        try:
            if not has_body:
                return await self._put(attempt, headers, b"")
            if spooled.body is not None:
                return await self._put(attempt, headers, spooled.body)
            assert spooled.blob is not None
            body = await anyio.to_thread.run_sync(self.blobs.path(spooled.blob).open, "rb")
            with body:
                return await self._put(attempt, headers, body)
        except (aiohttp.ClientError, TimeoutError, OSError, ssl.SSLError) as error:
            log.warning("forward of %s to node %s failed: %r", spooled.publish_id, hop.node, error)
            return attempt

    async def _put(self, attempt: Attempt, headers: dict[str, str], body: object) -> Attempt:
        async with self.session.put(
            URL(attempt.url, encoded=True), headers=headers, data=body, allow_redirects=False
        ) as response:
            await response.content.read(_MAX_ANSWER_BYTES)
            if not 200 <= response.status <= 299:
                log.warning("forward to %s answered %d", attempt.url, response.status)
            return Attempt(
                attempt.url,
                attempt.method,
                attempt.file_name,
                attempt.content_type,
                attempt.content_length,
                response.status,
            )
