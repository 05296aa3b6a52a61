"""Positive and negative examples of a service's OpenAPI document, sent over real HTTP (issue 17).

schemathesis generates requests from the document a running service serves; hypothesis is
derandomized so a run is repeatable. An operation "accepts its positive examples" when every
one is answered with a status schemathesis' positive-data check accepts (2xx, 3xx, 401, 403,
404, 409, 429) or with one the caller declares accepting for that service. Operations a
generated example cannot reasonably satisfy are excluded by the caller, with a reason each,
and counted as not accepting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from ..test_fuzz import AUTH_HEADERS

ACCEPTING = frozenset({*range(200, 400), 401, 403, 404, 409, 429})

Accepts = Callable[[int, str], bool]
Fixed = Callable[[Any], dict[str, Any]]
"""Per operation, the parts of a request held fixed (``as_strategy`` keywords: path_parameters, query)."""


def accepting_status(status: int, body: str) -> bool:
    return status in ACCEPTING


def operations_of(schema: Any, prefix: str = "/") -> list[Any]:
    """The operations whose path starts with ``prefix`` (default: all), in document order."""
    operations = [result.ok() for result in schema.get_all_operations()]
    return [operation for operation in operations if operation.path.startswith(prefix)]


def answers(
    operation: Any,
    base_url: str,
    mode: GenerationMode,
    examples: int,
    fixed: Mapping[str, Any] | None = None,
) -> list[tuple[int, str]]:
    """(status, body) of each generated example, derandomized so the run is repeatable."""
    seen: list[tuple[int, str]] = []

    @given(case=operation.as_strategy(generation_mode=mode, **(fixed or {})))
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case: Any) -> None:
        response = case.call(base_url=base_url, headers=AUTH_HEADERS)
        seen.append((response.status_code, response.text))

    try:
        run()
    except Unsatisfiable:
        # An operation with nothing to break (no parameter, no body) has no negative example.
        if mode is not GenerationMode.NEGATIVE:
            raise
    return seen


@dataclass
class PositiveReport:
    """How many operations accepted all their positive examples, and a line per operation."""

    total: int = 0
    accepting: int = 0
    lines: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.accepting / self.total if self.total else 0.0

    def explain(self) -> str:
        return f"{self.accepting}/{self.total} operations accept their positive examples:\n" + "\n".join(
            self.lines
        )


def positive_report(
    operations: list[Any],
    base_url: str,
    examples: int,
    excluded: Mapping[str, str] | None = None,
    accepts: Accepts = accepting_status,
    fixed: Fixed | None = None,
) -> PositiveReport:
    """Send each operation's positive examples; ``excluded`` (label -> reason) count as refusing."""
    report = PositiveReport(total=len(operations))
    for operation in operations:
        if excluded and operation.label in excluded:
            report.lines.append(f"{operation.label}: excluded, {excluded[operation.label]}")
            continue
        held = fixed(operation) if fixed else None
        seen = answers(operation, base_url, GenerationMode.POSITIVE, examples, held)
        good = sum(accepts(status, body) for status, body in seen)
        report.accepting += good == len(seen)
        refused = sorted({f"{status} {body[:120]}" for status, body in seen if not accepts(status, body)})
        report.lines.append(f"{operation.label}: {good}/{len(seen)} accepted; refused: {refused}")
    return report


def server_errors(
    operations: list[Any], base_url: str, examples: int, fixed: Fixed | None = None
) -> list[str]:
    """Every negative example answered with a 5xx, as 'label: status body'."""
    found: list[str] = []
    for operation in operations:
        held = fixed(operation) if fixed else None
        for status, body in answers(operation, base_url, GenerationMode.NEGATIVE, examples, held):
            if status >= 500:
                found.append(f"{operation.label}: {status} {body[:200]}")
    return found


def unknown_exclusions(operations: list[Any], excluded: Mapping[str, str]) -> set[str]:
    """Exclusions that name no operation of the document (a stale list is a failure)."""
    return set(excluded) - {operation.label for operation in operations}
