"""The statistics report: counters of API calls, kept in the database (reference 5).

Counting follows the reference: every counted call adds to ``totalApiCallCount`` and to the
success (status 200) or failure counter; GET and POST calls under ``/policytypes`` add to the
policy-type counters and calls with ``/policies`` in their path to the policy counters (DELETE
only to the overall ones); node-template calls and requests refused before routing (401, 413,
415) are not counted. Counters live in the database, so they survive restarts and add up over
every instance serving the same database.

Counting a call costs no database work on the request path: counts gather in memory and are
added to the rows (``value = value + n``, atomic) by one transaction every
:data:`FLUSH_INTERVAL_S`, before every report, and at shutdown. A per-call write would take
SQLite's write lock and an fsync on every read, doubling its latency; the price is that a
crash (not a clean stop) loses the counts of its last fraction of a second, and another
instance's calls show in a report after at most one interval.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterable

import anyio

from .policy_store import PolicyStore

log = logging.getLogger("netplatform.policy")

FLUSH_INTERVAL_S = 0.2

PREFIX = "/policy/api/v1"
TOTAL = "totalApiCallCount"
SUCCESS = "apiCallSuccessCount"
FAILURE = "apiCallFailureCount"
COUNTERS = (
    TOTAL,
    SUCCESS,
    FAILURE,
    "totalPolicyGetCount",
    "totalPolicyPostCount",
    "totalPolicyTypeGetCount",
    "totalPolicyTypePostCount",
    "policyGetSuccessCount",
    "policyGetFailureCount",
    "policyPostSuccessCount",
    "policyPostFailureCount",
    "policyTypeGetSuccessCount",
    "policyTypeGetFailureCount",
    "policyTypePostSuccessCount",
    "policyTypePostFailureCount",
)
NOT_COUNTED_STATUSES = frozenset({401, 413, 415})
STATISTICS_PATH = PREFIX + "/statistics"


def counters_for(method: str, route_path: str | None, status: int) -> list[str]:
    """The counters one answered call adds one to ([] for a call that is not counted)."""
    if route_path is None or not route_path.startswith(PREFIX) or status in NOT_COUNTED_STATUSES:
        return []
    path = route_path.removeprefix(PREFIX)
    if path.startswith("/nodetemplates") or route_path == STATISTICS_PATH:
        return []
    succeeded = status == 200
    counters = [TOTAL, SUCCESS if succeeded else FAILURE]
    area = "Policy" if "/policies" in path else "PolicyType" if path.startswith("/policytypes") else None
    if area is not None and method in ("GET", "POST"):
        verb = method.capitalize()
        outcome = "Success" if succeeded else "Failure"
        counters += [f"total{area}{verb}Count", f"{area[0].lower()}{area[1:]}{verb}{outcome}Count"]
    return counters


class Statistics:
    def __init__(self, store: PolicyStore) -> None:
        self.store = store
        self._pending: Counter[str] = Counter()
        self._lock = threading.Lock()

    def record(self, counters: Iterable[str]) -> None:
        """Count one call (in memory; see :meth:`flush`)."""
        with self._lock:
            self._pending.update(counters)

    def flush(self) -> None:
        """Add the pending counts to the database in one transaction (kept for later on failure)."""
        with self._lock:
            pending, self._pending = self._pending, Counter()
        if not pending:
            return
        try:
            self.store.add_to_counters(pending)
        except BaseException:
            self.record(pending.elements())
            raise

    async def flush_now(self) -> None:
        """Flush from the event loop; a failure is logged and the counts kept for the next flush."""
        try:
            await anyio.to_thread.run_sync(self.flush)
        except Exception:
            log.exception("could not store the API statistics, will retry")

    def report(self) -> dict[str, int]:
        """The report, after counting this call itself as a success (as the reference does)."""
        self.record([TOTAL, SUCCESS])
        self.flush()
        counters = self.store.read(lambda repository: repository.counters())
        return {"code": 200, **{name: counters.get(name, 0) for name in COUNTERS}}
