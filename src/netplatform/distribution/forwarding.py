"""The receiving end of a forwarding hop (spec 1.3): a file another node sends to this one.

The body is spooled to this node's blob store first (503 when it would take the spool under its
free-space floor: the sending node keeps the file and tries again later); then one transaction
records the file as this node's (same publish id as at the receiving node) and queues it for the
subscription. Only
after that commit does the sending node get its 2xx and drop its copy, so a file is always held
by at least one node. A hop repeated after a lost answer reuses the file already held and queues
it again only when it is not queued (at least once, as any delivery).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterable

from pydantic import ValidationError

from ..store.blobs import BlobRef, BlobStore
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest, Conflict
from .repository import Repositories
from .repository.queue import SpooledFile
from .schemas import ForwardEnvelope
from .spool_space import SpoolSpace

log = logging.getLogger("netplatform.distribution.forward")


def parse_envelope(value: str | None, publish_id: str) -> ForwardEnvelope:
    """The ``X-NETPLATFORM-FORWARD`` header; 400 when it is missing, malformed or for another file."""
    if value is None:
        raise BadRequest("Missing X-NETPLATFORM-FORWARD header.")
    try:
        envelope = ForwardEnvelope.model_validate(json.loads(value))
    except (ValueError, ValidationError):
        raise BadRequest("Malformed X-NETPLATFORM-FORWARD header.") from None
    if envelope.publishId != publish_id:
        raise BadRequest("The publish id of the path and of X-NETPLATFORM-FORWARD differ.")
    return envelope


class Forwarding:
    def __init__(self, db: Database, blobs: BlobStore, node: str, space: SpoolSpace) -> None:
        self.unit = UnitOfWork(db, Repositories)
        self.blobs = blobs
        self.node = node
        self.space = space

    async def spool(self, body: AsyncIterable[bytes], declared_length: int | None = None) -> BlobRef:
        return await self.space.store(body, declared_length)

    def accept(self, envelope: ForwardEnvelope, blob: BlobRef | None) -> bool:
        """Hold the file and queue it for the subscription; False when the subscription is gone.

        The new blob is removed when the commit fails or the file was held already.
        """
        try:
            blob_kept, held = self._commit(envelope, blob)
        except BaseException:
            self._discard(blob)
            raise
        if not blob_kept:
            self._discard(blob)
        return held

    def _discard(self, blob: BlobRef | None) -> None:
        if blob is not None:
            self.blobs.delete(blob.name)

    def _commit(self, envelope: ForwardEnvelope, blob: BlobRef | None) -> tuple[bool, bool]:
        """Whether the new blob is now the file's, and whether the file is held for the subscription."""
        if envelope.fromNode == self.node:
            # Nodes sharing one URL (serve --workers): holding its own file twice would let the
            # sender's delivery row end while this one is the same row; the sender tries again.
            raise Conflict("A node does not forward to itself.")

        def work(repo: Repositories) -> bool | None:
            """Whether the new blob is now the file's; None when the subscription is gone."""
            subscription = repo.subscriptions.find(envelope.subId, lock=True)
            if subscription is None or subscription.feed_id != envelope.feedId:
                return None
            file_row = repo.queue.find_file(self.node, envelope.publishId)
            blob_kept = file_row is None
            if file_row is None:
                file_row = repo.queue.insert_file(self._spooled(envelope, blob))
            if not repo.queue.is_queued(file_row, envelope.subId):
                repo.queue.enqueue(file_row, self.node, [envelope.subId])
            return blob_kept

        blob_kept = self.unit.write(work, retry=False)
        if blob_kept is None:
            log.info(
                "forward of %s for subscription %d: it no longer exists",
                envelope.publishId,
                envelope.subId,
            )
            return False, False
        log.info(
            "holding %s from node %s for subscription %d",
            envelope.publishId,
            envelope.fromNode,
            envelope.subId,
        )
        return blob_kept, True

    def _spooled(self, envelope: ForwardEnvelope, blob: BlobRef | None) -> SpooledFile:
        return SpooledFile(
            row=0,
            node=self.node,
            publish_id=envelope.publishId,
            feed_id=envelope.feedId,
            file_id=envelope.fileId,
            method=envelope.method,
            blob=blob.name if blob is not None else None,
            content_length=blob.size if blob is not None else 0,
            headers=dict(envelope.headers),
            published_ms=envelope.publishedMs,
        )
