"""The statistics report: counters of API calls, kept in the database (reference 5).

Counting follows the reference: every counted call adds to ``totalApiCallCount`` and to the
success (status 200) or failure counter; GET and POST calls under ``/policytypes`` add to the
policy-type counters and calls with ``/policies`` in their path to the policy counters (DELETE
only to the overall ones); node-template calls and requests refused before routing (401, 413,
415) are not counted. Counters live in the database, so they survive restarts and add up over
every instance serving the same database.
"""

from __future__ import annotations

from .repository import PolicyStore

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

    def record(self, counters: list[str]) -> None:
        self.store.bump(counters)

    def report(self) -> dict[str, int]:
        """The report, after counting this call itself as a success (as the reference does)."""
        with self.store.writing() as repository:
            repository.bump([TOTAL, SUCCESS])
            counters = repository.counters()
        return {"code": 200, **{name: counters.get(name, 0) for name in COUNTERS}}
