"""The steps of an imperative workflow as a graph: its on_success/on_failure edges must name
steps it has and close no cycle (checked when a CBA is saved, and again before a run)."""

from __future__ import annotations

from collections.abc import Mapping

from .tosca import Step

ACYCLIC = "Imperative workflow must be acyclic. Check on_success/on_failure for circular references"


def step_cycle(steps: Mapping[str, Step]) -> list[str] | None:
    """One cycle of on_success/on_failure edges, as a path; None when the steps are acyclic."""
    graph = {name: [*(step.on_success or []), *(step.on_failure or [])] for name, step in steps.items()}
    done: set[str] = set()
    for start in graph:
        path, pending = [start], [iter(graph[start])]
        while pending:
            nxt = next(pending[-1], None)
            if nxt is None:
                done.add(path.pop())
                pending.pop()
            elif nxt in path:
                return [*path[path.index(nxt) :], nxt]
            elif nxt in graph and nxt not in done:
                path.append(nxt)
                pending.append(iter(graph[nxt]))
    return None


def unknown_edges(steps: Mapping[str, Step]) -> list[str]:
    return sorted(
        {target for step in steps.values() for target in [*(step.on_success or []), *(step.on_failure or [])]}
        - set(steps)
    )
