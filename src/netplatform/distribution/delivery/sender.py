"""One delivery attempt over HTTPS (reference section 6): the request a subscriber receives.

``PUT`` (or ``DELETE`` for a retraction) to ``<delivery url or learned redirect>/<file>``, with
Basic credentials of the subscription (its password opened here, the one place it is presented:
it is stored sealed), the publish id, the forwarded headers, a fresh
``X-InvocationID``, content headers only when there is a body, and ``Expect: 100-continue``
when the subscription asks for it and the body is not empty. Redirects are never followed here;
the answer (or ``-1`` when none came) is judged by :mod:`.outcomes`.
"""

from __future__ import annotations

import logging
import ssl
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO
from urllib.parse import quote

import aiohttp
import anyio
from yarl import URL

from ...settings import Settings
from ...store.blobs import BlobStore
from ...store.secrets import Sealer, UnsealError
from ...web.auth import basic_header
from ..attempts import Attempt
from ..file_headers import CONTENT_TYPE, INVOCATION_HEADER, PUBLISH_ID_HEADER, content_headers, other_headers
from ..log_model import NO_STATUS
from ..repository.queue import DeliveryJob
from .body import DecompressionLimits, Payload, prepare_payload, prepared_in_memory

log = logging.getLogger("netplatform.distribution.delivery.engine")

_MAX_ANSWER_BYTES = 64 * 1024
SMALL_BODY = 256 * 1024
"""Bodies up to this size are read whole in one worker-thread hop and sent from memory."""
READ_CHUNK = 1024 * 1024
"""Larger bodies are streamed from the spool in chunks this big (one thread hop each; aiohttp's own
file reader hops per 64 KiB). TLS rules out sendfile: the bytes pass through the process anyway."""


def delivery_url(job: DeliveryJob, file_name: str) -> str:
    base = job.redirect_base or job.subscription.fields.delivery.url
    return f"{base}/{quote(file_name, safe='')}"


def ssl_context(settings: Settings) -> ssl.SSLContext:
    """The system's trusted CAs plus ``NETPLATFORM_DELIVERY_CA_BUNDLE``."""
    context = ssl.create_default_context()
    if settings.delivery_ca_bundle is not None:
        context.load_verify_locations(cafile=str(settings.delivery_ca_bundle))
    return context


def client_session(settings: Settings) -> aiohttp.ClientSession:
    """One pooled HTTPS client for all workers (call inside the running event loop)."""
    connector = aiohttp.TCPConnector(ssl=ssl_context(settings), limit=max(4, settings.delivery_workers * 2))
    timeout = aiohttp.ClientTimeout(
        total=None,
        sock_connect=settings.delivery_connect_timeout_s,
        sock_read=settings.delivery_read_timeout_s,
    )
    return aiohttp.ClientSession(connector=connector, timeout=timeout, auto_decompress=False)


class Sender:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        blobs: BlobStore,
        scratch_dir: Path,
        limits: DecompressionLimits,
        sealer: Sealer,
    ) -> None:
        self.session = session
        self.blobs = blobs
        self.scratch_dir = scratch_dir
        self.limits = limits
        self.sealer = sealer

    async def send(self, job: DeliveryJob) -> Attempt:
        in_memory = prepared_in_memory(job)  # no thread hop for a body kept in the file row
        if in_memory is not None:
            payload, small = in_memory, in_memory.data
        else:
            payload, small = await anyio.to_thread.run_sync(self._prepare, job)
        if payload.refusal is not None:
            url = delivery_url(job, payload.file_name)
            content_type = job.file.headers.get(CONTENT_TYPE)
            method = job.file.method
            return Attempt(
                url, method, payload.file_name, content_type, payload.length, NO_STATUS, None, payload.refusal
            )
        try:
            return await self._send(job, payload, small)
        finally:
            payload.discard()

    def _prepare(self, job: DeliveryJob) -> tuple[Payload, bytes | None]:
        """The payload, and its bytes when it is small (one thread hop for both)."""
        payload = prepare_payload(job, self.blobs, self.scratch_dir, self.limits)
        if payload.data is not None:
            return payload, payload.data
        if payload.path is None or payload.length > SMALL_BODY:
            return payload, None
        try:
            return payload, payload.path.read_bytes()
        except OSError:  # gone meanwhile: the attempt fails when it opens the file
            return payload, None

    async def _send(self, job: DeliveryJob, payload: Payload, small: bytes | None) -> Attempt:
        target = job.subscription.fields.delivery
        url = delivery_url(job, payload.file_name)
        stored = job.file.headers
        headers = {
            **other_headers(stored),
            PUBLISH_ID_HEADER: job.file.publish_id,
            INVOCATION_HEADER: str(uuid.uuid4()),
            **payload.extra_headers,
        }
        content_type = None
        if payload.length > 0:
            content = content_headers(stored)
            if payload.transformed:
                content.pop("Content-MD5", None)
            headers.update(content)
            content_type = content.get("Content-Type")
        attempt = Attempt(url, job.file.method, payload.file_name, content_type, payload.length, NO_STATUS)
        authorization = self._authorization(job)
        if authorization is None:
            return attempt
        headers["Authorization"] = authorization
        try:
            if small is not None:
                return await self._request(attempt, headers, small, expect100=target.use100)
            if payload.path is None:
                return await self._request(attempt, headers, None, expect100=False)
            body = await anyio.to_thread.run_sync(payload.path.open, "rb")
            with body:
                headers["Content-Length"] = str(payload.length)  # sent as is, not chunked
                return await self._request(attempt, headers, _chunks(body), expect100=target.use100)
        except (aiohttp.ClientError, TimeoutError, OSError, ssl.SSLError) as error:
            log.info("delivery of %s to %s failed: %r", job.file.publish_id, url, error)
            return attempt

    def _authorization(self, job: DeliveryJob) -> str | None:
        """The subscription's Basic credentials, its password opened here; None (nothing is sent,
        the attempt fails and is retried until expiry) when no configured key opens it: a key
        dropped too early, which may come back."""
        target = job.subscription.fields.delivery
        try:
            return basic_header(target.user, self.sealer.open(target.sealed_password))
        except UnsealError as error:
            log.error(
                "delivery of %s to subscription %d: %s", job.file.publish_id, job.subscription.id, error
            )
            return None

    async def _request(
        self, attempt: Attempt, headers: dict[str, str], body: object, *, expect100: bool
    ) -> Attempt:
        async with self.session.request(
            attempt.method,
            URL(attempt.url, encoded=True),  # sent as built: the file name stays percent-encoded
            headers=headers,
            data=body,
            expect100=expect100,
            allow_redirects=False,
            skip_auto_headers=() if body is not None else ("Content-Type",),
        ) as response:
            await response.content.read(_MAX_ANSWER_BYTES)  # a small answer keeps the connection
            return replace(attempt, status=response.status, location=response.headers.get("Location"))


async def _chunks(body: BinaryIO) -> AsyncIterator[bytes]:
    """The rest of ``body``, read in worker threads a chunk at a time (memory stays one chunk)."""
    while chunk := await anyio.to_thread.run_sync(body.read, READ_CHUNK):
        yield chunk
