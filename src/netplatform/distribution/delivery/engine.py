"""Delivery workers: drain subscription queues in order, record every attempt, retry with backoff.

Each worker claims one subscription queue of this node at a time (see :mod:`.repository.queue`),
keeps its lease alive while it works, and delivers that queue's files oldest first. A file of a
subscription bound to another node (egress route) is forwarded there instead (``fwd`` record);
the hop is complete when that node answers 2xx, which it does only once the file is durable and
queued there; a failed forward pauses the queue with the same backoff as a failed delivery, and a
bound node that is down is retried, never bypassed. A success moves on to the next file (for a
privileged subscription the file stays queued, offered again every ``privileged_reoffer_s`` until
the subscriber acknowledges it); a refusal (4xx other than 429, an unusable redirect) ends that
file with an ``exp notRetryable`` record, a file that would inflate past the decompression limits
with ``exp decompressionLimit`` (nothing sent); a retryable failure (429, 5xx, no
answer) pauses the whole queue for the backoff delay and frees it, so a failing subscriber holds no
worker and delays no other subscription. A file older than the expiry when its turn comes ends
with ``exp retriesExhausted``. Every attempt's log record and queue change commit together; the
successes of one run (up to ``RUN`` files read from the head of the queue at once) share one
transaction, committed before anything else is recorded, so a crash in a run delivers its files
again (at least once). Claims and leases commit without waiting for the disk: a restart frees them
anyway; a claim that cannot be released (the database down) is released again until it is, so a
worker outlives a database restart and its queue is free as soon as the database is back. A
publish wakes one idle worker (:mod:`.doorbell`).

Stopping: workers stop claiming, the attempt in flight may finish within the grace period,
then the rest are cancelled and this instance's claims released; an attempt cut short is
delivered again later (at least once).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, TypeVar

import anyio

from ...clock import now_ms
from ...settings import Settings
from ...store.blobs import BlobStore
from ...store.db import Database
from ...store.secrets import sealer_for
from ...store.unit_of_work import UnitOfWork
from ...web.jobs import MIN_ALERT_S, Job
from ..attempts import Attempt
from ..file_headers import CONTENT_TYPE
from ..forward_sender import ForwardSender
from ..log_model import NO_STATUS, ExpiryReason, LogRecord, RecordType
from ..nodes import node_identity
from ..repository import Repositories
from ..repository.queue import DeliveryJob, NextHop, QueueRepository
from .body import DecompressionLimits
from .doorbell import Doorbell
from .metrics import DeliveryMetrics
from .outcomes import Outcome, Verdict, judge, next_delay
from .sender import Sender, client_session, delivery_url

log = logging.getLogger("netplatform.distribution.delivery.engine")

BATCH = 100
"""Files a worker delivers from one queue before it lets other queues have their turn."""
RUN = 16
"""Files read from the head of a queue at once; their successes are recorded in one transaction."""
STOP_GRACE_S = 10.0
RELEASE_RETRY_MAX_S = 5.0  # the longest pause between attempts to free a claim (database down)

Result = TypeVar("Result")


class DeliveryEngine:
    def __init__(
        self,
        db: Database,
        blobs: BlobStore,
        settings: Settings,
        metrics: DeliveryMetrics,
        decompression: DecompressionLimits | None = None,
        privileged_reoffer_s: float = 300.0,
        job: Job | None = None,
    ) -> None:
        # The workers' record on /metrics and /health: a claim or a drain that fails (the
        # database, a bug) is a failure; a subscriber refusing a file is not.
        self.job = job or Job("delivery-workers", MIN_ALERT_S)
        self.unit = UnitOfWork(db, Repositories)
        self.decompression = decompression or DecompressionLimits()
        self.privileged_reoffer_ms = int(privileged_reoffer_s * 1000)
        self.blobs = blobs
        self.settings = settings
        self.metrics = metrics
        self.node = settings.instance_name  # the node: it claims only the work on files it holds
        self.lease_ms = int(settings.delivery_lease_s * 1000)
        self.scratch_dir = Path(settings.data_dir) / "distribution-scratch"
        self._doorbell = Doorbell()
        # The queues this process's workers hold, and whether a claim may have been committed
        # although its worker saw it fail (the connection died after COMMIT was sent): such a
        # claim is this node's and no worker's, and would keep its queue until the lease ran out.
        self._claim_lock = threading.Lock()
        self._draining: set[int] = set()
        # Queues a worker here drains that got new work meanwhile (only touched on the event loop):
        # the worker reads the queue again before it lets go, and rings when it lets go of one.
        self._rung_while_draining: set[int] = set()
        self._claims_uncertain = False
        self._stopping = False
        self._workers: list[asyncio.Task[None]] = []
        self._sender: Sender | None = None
        self._forwarder: ForwardSender | None = None
        self.node_identity = node_identity(settings)  # checked here: a bad pair fails at start
        self.sealer = sealer_for(settings)  # opens the delivery passwords the sender presents

    async def start(self) -> None:
        freed = await anyio.to_thread.run_sync(self._release_all)
        if freed:
            log.info("released %d delivery claims left by a previous run of %s", freed, self.node)
        session = client_session(self.settings)
        self._sender = Sender(session, self.blobs, self.scratch_dir, self.decompression, self.sealer)
        self._forwarder = ForwardSender(session, self.blobs, self.node, self.node_identity)
        self._workers = [
            asyncio.create_task(self._work(), name=f"delivery-{n}")
            for n in range(self.settings.delivery_workers)
        ]

    async def stop(self) -> None:
        self._stopping = True
        self._doorbell.ring_all()
        if self._workers:
            _, pending = await asyncio.wait(self._workers, timeout=STOP_GRACE_S)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        await anyio.to_thread.run_sync(self._release_all)
        if self._sender is not None:
            await self._sender.session.close()

    def wake(self, sub_ids: Collection[int] | None = None) -> None:
        """New work was committed here (for the queues of ``sub_ids``; None: not known): let an idle
        worker look now rather than at the next poll.

        A queue a worker of this process drains needs no other worker: it reads the queue's head
        again before it lets go. So only work for another queue rings, and new work for a drained
        queue rings once its worker has let go (an idle worker then claims it, if it is still due).
        A publish to a queue being drained thus costs no idle worker a futile look for a queue.
        """
        if sub_ids is not None:
            self._rung_while_draining.update(sub_id for sub_id in sub_ids if sub_id in self._draining)
            if all(sub_id in self._draining for sub_id in sub_ids):
                return
        self._doorbell.ring()

    # --- the worker loop -------------------------------------------------------------------

    async def _work(self) -> None:
        while not self._stopping:
            try:
                sub_id = await anyio.to_thread.run_sync(self._claim)
            except Exception as error:
                log.exception("claiming a delivery queue failed")
                self.job.failed(error)
                self._claims_uncertain = True
                sub_id = None
            else:
                self.job.succeeded()
            if sub_id is None:
                await self._doorbell.wait(self.settings.delivery_poll_s)
                continue
            self._doorbell.ring()  # another idle worker may find another due queue
            await self._drain(sub_id)

    async def _drain(self, sub_id: int) -> None:
        keeper = asyncio.create_task(self._keep_claim(sub_id))
        retry_at_ms: int | None = now_ms()  # behind the queues that waited longer
        try:
            handled = 0
            while handled < BATCH and not self._stopping:
                self._rung_while_draining.discard(sub_id)  # the read below sees what was committed
                jobs, delay_s = await anyio.to_thread.run_sync(self._heads, sub_id)
                if not jobs:
                    break
                count, paused = await self._run(jobs, delay_s)
                handled += count
                if paused:
                    retry_at_ms = None  # the backoff has set it
                    break
        except Exception as error:
            log.exception("delivery of subscription %d failed; it is tried again later", sub_id)
            self.job.failed(error)
            retry_at_ms = now_ms() + int(self.settings.delivery_poll_s * 1000)
        finally:
            keeper.cancel()
            await self._free(sub_id, retry_at_ms)
            with self._claim_lock:
                self._draining.discard(sub_id)
            if sub_id in self._rung_while_draining:  # work that came after its last read
                self._rung_while_draining.discard(sub_id)
                self._doorbell.ring()

    async def _free(self, sub_id: int, retry_at_ms: int | None) -> None:
        """Release the claim; while the database cannot take it (down, restarting), try again, so
        that the queue is free once it is back, not when the lease runs out (delivery_lease_s),
        and the worker lives on (an exception here would end its task for good)."""
        pause = self.settings.delivery_poll_s
        while True:
            try:
                await anyio.to_thread.run_sync(self._release, sub_id, retry_at_ms)
                return
            except Exception as error:
                if self._stopping:  # stop() releases every claim of this node
                    return
                log.warning("releasing the claim on subscription %d failed, trying again: %s", sub_id, error)
            await asyncio.sleep(pause)
            pause = min(pause * 2, RELEASE_RETRY_MAX_S)

    async def _run(self, jobs: list[DeliveryJob], delay_s: float) -> tuple[int, bool]:
        """Deliver ``jobs`` (the head of one queue) in order: how many were handled, and whether the
        queue now pauses.

        Successful deliveries are recorded together, one transaction for the run, before anything
        else is recorded and before the run ends; a crash in between delivers them again (at least
        once). A run stops early where the queue's state changes (a pause, a learned redirect).
        """
        delivered: list[tuple[DeliveryJob, Attempt]] = []
        handled = 0
        try:
            for job in jobs:
                if self._stopping:
                    break
                handled += 1
                attempt = await self._attempt(job)
                if attempt is not None and self._delivered(job, attempt):
                    delivered.append((job, attempt))
                    continue
                await self._record_delivered(delivered)
                if await self._settle(job, attempt, delay_s):
                    return handled, True
                if attempt is not None and attempt.location is not None:
                    break  # a redirect may have been learned: the rest is read again
        finally:
            await self._record_delivered(delivered)
        return handled, False

    async def _attempt(self, job: DeliveryJob) -> Attempt | None:
        """Send a file to its subscriber (None: it is expired or forwarded, not sent here)."""
        if self._expired(job) or job.forward_to() is not None:
            return None
        assert self._sender is not None
        return await self._sender.send(job)

    async def _settle(self, job: DeliveryJob, attempt: Attempt | None, delay_s: float) -> bool:
        """Record one job that was not plainly delivered; True when the queue now pauses."""
        if attempt is not None:
            return await anyio.to_thread.run_sync(self._record, job, attempt, delay_s)
        if self._expired(job):
            await anyio.to_thread.run_sync(self._expire, job)
            return False
        hop = job.forward_to()
        assert hop is not None
        return await self._forward(job, hop, delay_s)

    def _delivered(self, job: DeliveryJob, attempt: Attempt) -> bool:
        """Whether the attempt is a plain success (2xx, nothing refused)."""
        return attempt.refusal is None and self._verdict(job, attempt).outcome is Outcome.DELIVERED

    async def _record_delivered(self, delivered: list[tuple[DeliveryJob, Attempt]]) -> None:
        """Record successful deliveries in one transaction (and forget them)."""
        if delivered:
            done = list(delivered)
            delivered.clear()
            await anyio.to_thread.run_sync(self._record_successes, done)

    async def _forward(self, job: DeliveryJob, hop: NextHop, delay_s: float) -> bool:
        """Send the file to the bound node; True when the queue now pauses (the hop failed)."""
        assert self._forwarder is not None
        attempt = await self._forwarder.send(job, hop)
        return await anyio.to_thread.run_sync(self._record_forward, job, attempt, delay_s)

    async def _keep_claim(self, sub_id: int) -> None:
        """Renew the lease while a long delivery runs (every third of the lease)."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            kept = await anyio.to_thread.run_sync(self._extend, sub_id)
            if not kept:
                log.warning("lost the claim on subscription %d (lease ran out)", sub_id)
                return

    def _expired(self, job: DeliveryJob) -> bool:
        return now_ms() - job.file.published_ms > self.settings.delivery_expiry_s * 1000

    # --- database steps (run in worker threads) --------------------------------------------

    def _claim(self) -> int | None:
        """Claim a due queue for this worker (first freeing what a failed claim may have left)."""
        if self._claims_uncertain:
            self._release_orphans()
        if not self.unit.read(lambda repo: repo.queue.any_due(self.node, now_ms())):
            return None
        with self._claim_lock:  # a claim is registered before an orphan release can see it
            claimed = self._lease(lambda queue: queue.claim_next(self.node, now_ms(), self.lease_ms))
            if claimed is not None:
                self._draining.add(claimed)
            return claimed

    def _release_orphans(self) -> None:
        """Free this node's claims that no worker here drains (raises while the database is down)."""
        with self._claim_lock:
            freed = self._lease(lambda queue: queue.release_claims_except(self.node, self._draining))
            self._claims_uncertain = False
        if freed:
            log.info("released %d delivery claims no worker held (a claim that failed had committed)", freed)

    def _lease(self, work: Callable[[QueueRepository], Result]) -> Result:
        """A claim or lease change: one attempt, committed without waiting for the disk (a restart
        frees claims anyway)."""
        return self.unit.write(lambda repo: work(repo.queue), retry=False, durable=False)

    def _extend(self, sub_id: int) -> bool:
        return self._lease(lambda queue: queue.extend_claim(sub_id, self.node, now_ms() + self.lease_ms))

    def _release(self, sub_id: int, retry_at_ms: int | None) -> None:
        self._lease(lambda queue: queue.release_claim(sub_id, self.node, retry_at_ms=retry_at_ms))

    def _release_all(self) -> int:
        return self.unit.write(lambda repo: repo.queue.release_all_claims(self.node), retry=False)

    def _heads(self, sub_id: int) -> tuple[list[DeliveryJob], float]:
        return self.unit.read(lambda repo: repo.queue.heads_of_queue(sub_id, self.node, now_ms(), RUN))

    def _expire(self, job: DeliveryJob) -> None:
        """The file is too old: give it up (``exp retriesExhausted``)."""

        def work(repo: Repositories) -> list[str]:
            repo.logs.insert(unsent_expiry(job, ExpiryReason.RETRIES_EXHAUSTED))
            return repo.queue.finish_delivery(job.delivery_id, job.file.row, self.node)

        self._remove(self.unit.write(work, retry=False))
        self.metrics.outcomes.labels("expired").inc()

    def _record(self, job: DeliveryJob, attempt: Attempt, delay_s: float) -> bool:
        """Log the attempt and move the queue on; True when the subscription now pauses."""
        if attempt.refusal is not None:
            self._refuse(job, attempt, attempt.refusal)
            return False
        verdict = self._verdict(job, attempt)

        def work(repo: Repositories) -> list[str]:
            repo.logs.insert(_delivery_record(job, attempt))
            return self._apply(repo, job, attempt, verdict, delay_s)

        self._remove(self.unit.write(work, retry=False))
        self.metrics.outcomes.labels(verdict.outcome.value).inc()
        return verdict.outcome is Outcome.RETRY

    def _record_successes(self, delivered: list[tuple[DeliveryJob, Attempt]]) -> None:
        """Log plain successes of one queue and move it on, in one transaction."""
        kept = [(job, attempt) for job, attempt in delivered if job.subscription.fields.privileged]
        ended = [
            (job.delivery_id, job.file.row) for job, _ in delivered if not job.subscription.fields.privileged
        ]
        sub_id = delivered[0][0].subscription.id

        def work(repo: Repositories) -> list[str]:
            repo.logs.insert_all([_delivery_record(job, attempt) for job, attempt in delivered])
            repo.queue.reset_backoff(sub_id, self.node)
            for privileged, _ in kept:  # kept until acknowledged (DELETE /delete/...)
                offer_again_ms = now_ms() + self.privileged_reoffer_ms
                repo.queue.await_acknowledgement(privileged.delivery_id, offer_again_ms)
            return repo.queue.finish_deliveries(ended, self.node)

        self._remove(self.unit.write(work, retry=False))
        self.metrics.outcomes.labels(Outcome.DELIVERED.value).inc(len(delivered))

    @staticmethod
    def _verdict(job: DeliveryJob, attempt: Attempt) -> Verdict:
        return judge(
            attempt.status,
            attempt.location,
            follow_redirect=job.subscription.fields.follow_redirect,
            delivered_url=attempt.url,
            file_name=attempt.url.rsplit("/", 1)[1],
        )

    def _refuse(self, job: DeliveryJob, attempt: Attempt, why: str) -> None:
        """Nothing was sent (the file inflates past the limits): ``exp decompressionLimit``, next file."""
        log.warning("%s not delivered to subscription %d: %s", job.file.publish_id, job.subscription.id, why)
        record = _expiry_record(job, attempt, ExpiryReason.DECOMPRESSION_LIMIT, job.attempts)

        def work(repo: Repositories) -> list[str]:
            repo.logs.insert(record)
            return repo.queue.finish_delivery(job.delivery_id, job.file.row, self.node)

        self._remove(self.unit.write(work, retry=False))
        self.metrics.outcomes.labels(Outcome.REFUSED.value).inc()

    def _record_forward(self, job: DeliveryJob, attempt: Attempt, delay_s: float) -> bool:
        """Log the forward attempt; a 2xx ends this node's part, anything else pauses the queue."""
        sub_id = job.subscription.id
        forwarded = 200 <= attempt.status <= 299

        def work(repo: Repositories) -> list[str]:
            repo.logs.insert(_attempt_record(job, attempt, RecordType.FORWARD, status_code=attempt.status))
            if forwarded:
                repo.queue.reset_backoff(sub_id, self.node)
                return repo.queue.finish_delivery(job.delivery_id, job.file.row, self.node)
            repo.queue.count_attempt(job.delivery_id)
            self._back_off(repo, sub_id, delay_s)
            return []

        self._remove(self.unit.write(work, retry=False))
        self.metrics.outcomes.labels("forwarded" if forwarded else "retry").inc()
        return not forwarded

    def _back_off(self, repo: Repositories, sub_id: int, delay_s: float) -> None:
        delay = next_delay(
            delay_s, self.settings.delivery_retry_initial_s, self.settings.delivery_retry_max_s
        )
        repo.queue.postpone(sub_id, self.node, now_ms() + int(delay * 1000), delay)

    def _apply(
        self, repo: Repositories, job: DeliveryJob, attempt: Attempt, verdict: Verdict, delay_s: float
    ) -> list[str]:
        sub_id = job.subscription.id
        match verdict.outcome:
            case Outcome.DELIVERED:
                repo.queue.reset_backoff(sub_id, self.node)
                if job.subscription.fields.privileged:  # kept until acknowledged (DELETE /delete/...)
                    repo.queue.await_acknowledgement(job.delivery_id, now_ms() + self.privileged_reoffer_ms)
                    return []
                return repo.queue.finish_delivery(job.delivery_id, job.file.row, self.node)
            case Outcome.REDIRECTED:
                repo.queue.count_attempt(job.delivery_id)
                repo.queue.remember_redirect(sub_id, verdict.redirect_base)
                return []
            case Outcome.REFUSED:
                record = _expiry_record(job, attempt, ExpiryReason.NOT_RETRYABLE, job.attempts + 1)
                repo.logs.insert(record)
                return repo.queue.finish_delivery(job.delivery_id, job.file.row, self.node)
            case Outcome.RETRY:
                repo.queue.count_attempt(job.delivery_id)
                if attempt.status == NO_STATUS and job.redirect_base:
                    repo.queue.remember_redirect(sub_id, None)
                self._back_off(repo, sub_id, delay_s)
                return []

    def _remove(self, blob_names: list[str]) -> None:
        for name in blob_names:
            self.blobs.delete(name)


def _attempt_record(job: DeliveryJob, attempt: Attempt, record_type: RecordType, **outcome: Any) -> LogRecord:
    """A ``del`` or ``exp`` record: what was sent where, plus the outcome's own fields."""
    return LogRecord(
        type=record_type,
        date_ms=now_ms(),
        feed_id=job.file.feed_id,
        sub_id=job.subscription.id,
        publish_id=job.file.publish_id,
        request_uri=attempt.url,
        method=attempt.method,
        content_type=attempt.content_type,
        content_length=attempt.content_length,
        node=job.file.node,
        **outcome,
    )


def _delivery_record(job: DeliveryJob, attempt: Attempt) -> LogRecord:
    return _attempt_record(
        job,
        attempt,
        RecordType.DELIVERY,
        status_code=attempt.status,
        delivery_id=job.subscription.fields.delivery.user,
    )


def unsent_expiry(job: DeliveryJob, reason: ExpiryReason) -> LogRecord:
    """The ``exp`` record of a delivery given up without another attempt: what it would have sent, where."""
    has_body = job.file.method == "PUT" and not job.subscription.fields.metadata_only
    attempt = Attempt(
        url=delivery_url(job, job.file.file_id),
        method=job.file.method,
        file_name=job.file.file_id,
        content_type=job.file.headers.get(CONTENT_TYPE) if has_body else None,
        content_length=job.file.content_length if has_body else 0,
        status=NO_STATUS,
    )
    return _expiry_record(job, attempt, reason, job.attempts)


def _expiry_record(job: DeliveryJob, attempt: Attempt, reason: ExpiryReason, attempts: int) -> LogRecord:
    return _attempt_record(job, attempt, RecordType.EXPIRY, expiry_reason=reason, attempts=attempts)
