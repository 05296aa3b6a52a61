"""The workflow engine: a workflow's steps along their ``on_success`` / ``on_failure`` edges, each
step's node template run by its component under its timeout, the outputs resolved at the end
(reference execution.md 2.1-2.5).

Edges: START leads to every step nothing leads to. A step runs once every edge into it is
decided (taken or skipped) and at least one was taken; a step none of whose edges was taken is
skipped, and so are its own edges. A result with no edge of its kind to follow (a failure
without ``on_failure``) fails the workflow. Errors of failures an ``on_failure`` edge handled
are dropped when the workflow completes. A cycle is refused (also when the CBA is saved).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy.orm import Session

from ...store.errors import WriteConflict
from ...web.errors import ApiError
from ..catalog.expansion import SELF, ExpansionLimits
from ..catalog.steps import ACYCLIC, step_cycle, unknown_edges
from ..catalog.tosca import Implementation, NodeTemplate, Step, Workflow
from .expressions import ExpressionFailed, Scope
from .loaded import LoadedBlueprint

log = logging.getLogger(__name__)
DEFAULT_TIMEOUT_S = 180


class StepFailed(Exception):
    def __init__(self, *errors: str, attributes: Mapping[str, Any] | None = None) -> None:
        super().__init__(", ".join(errors))
        self.errors = list(errors)
        self.attributes = dict(attributes or {})


class StepTimedOut(StepFailed):
    """The step's own check found its time up: the same failure as the engine's timer finding it
    (whichever comes first under load), answered with the same message."""


class WorkflowNotFound(Exception):
    pass


Write = Callable[[Session], Any]
"""A unit of work a step defers: run later in the transaction that writes the run's record, as a
function of that transaction's session (it opens the repository it writes through on it)."""


@dataclass(frozen=True)
class RunInfo:
    """Who asked for the run, what it runs. ``deferred`` (not None) collects the writes of the
    run's successful steps, for the caller to commit with the run's record. ``caller`` is the
    identity that asked (what the run reads of the platform, it reads with its permissions)."""

    request_id: str
    sub_request_id: str
    originator_id: str
    action_name: str
    deferred: list[Write] | None = field(default=None, compare=False, hash=False)
    caller: str | None = None


@dataclass
class StepContext:
    blueprint: LoadedBlueprint
    node_name: str
    node: NodeTemplate
    inputs: dict[str, Any]
    scope: Scope
    run: RunInfo
    deadline: float
    deferred: list[Write] | None = None

    def write(self, work: Write, now: Callable[[Write], None]) -> None:
        """``work`` deferred when the run collects its writes (``now`` runs it otherwise). Kept
        per step: the writes of a step that timed out or failed are dropped, never committed."""
        self.check_deadline()
        if self.deferred is not None:
            self.deferred.append(work)
        else:
            now(work)

    def properties(self) -> dict[str, Any]:
        """The ``<action>-properties`` object of the request (dynamic inputs of a resolution)."""
        found = self.scope.request_block.get(f"{self.run.action_name}-properties")
        return found if isinstance(found, dict) else {}

    def check_deadline(self) -> None:
        """Raised before a step writes anything, so a step that timed out leaves nothing behind."""
        if time.monotonic() > self.deadline:
            raise StepTimedOut(f"step of node template ({self.node_name}) timed out")


class Component(Protocol):
    def __call__(self, context: StepContext) -> dict[str, Any]: ...


@dataclass
class WorkflowResult:
    outputs: dict[str, Any]
    errors: list[str] = field(default_factory=list)


def workflow_of(blueprint: LoadedBlueprint, name: str) -> Workflow:
    topology = blueprint.template.topology_template
    workflow = (topology.workflows or {}).get(name) if topology else None
    if workflow is None:
        raise WorkflowNotFound(
            f"could't get workflow({name}) from blueprint({blueprint.name}:{blueprint.version})"
        )
    return workflow


class Engine:
    """Runs workflows; ``components`` maps a node type name to what runs it."""

    def __init__(
        self,
        components: Mapping[str, Component],
        unsupported: Callable[[str], str],
        pool: ThreadPoolExecutor,
        limits: ExpansionLimits | None = None,
    ) -> None:
        self.components = components
        self.unsupported = unsupported
        self.pool = pool
        self.limits = limits or ExpansionLimits()

    def run(
        self, blueprint: LoadedBlueprint, action: str, request_block: dict[str, Any], run: RunInfo
    ) -> WorkflowResult:
        workflow = workflow_of(blueprint, action)
        steps = workflow.steps or {}
        if not steps:
            return WorkflowResult({}, [f"could't get steps for workflow({action})"])
        if step_cycle(steps) is not None:
            return WorkflowResult({}, [ACYCLIC])
        missing = unknown_edges(steps)
        if missing:
            return WorkflowResult({}, [f"workflow({action}) names unknown steps {missing}"])
        inputs = _workflow_inputs(workflow, request_block, action)
        scope = Scope(blueprint, inputs, request_block, limits=self.limits)
        errors = _Walk(self, blueprint, steps, scope, run).walk()
        try:
            declared = {name: prop.value for name, prop in (workflow.outputs or {}).items()}
            outputs = scope.resolve_each(declared, SELF)
        except ExpressionFailed as failure:
            return WorkflowResult({}, [*errors, f"workflow outputs: {failure}"])
        return WorkflowResult(outputs, errors)

    def run_step(
        self, blueprint: LoadedBlueprint, step_name: str, step: Step, scope: Scope, run: RunInfo
    ) -> list[str]:
        """Run one step; its errors (none: success). The node's attributes land in ``scope``."""
        name = step.target or ""
        node = blueprint.node_templates.get(name)
        if node is None:
            return [f"step({step_name}): no node template ({name})"]
        component = self.components.get(node.type)
        if component is None:
            return [f"step({step_name}): {self.unsupported(node.type)}"]
        try:
            inputs, timeout = _operation(blueprint, name, node, scope)
        except ExpressionFailed as failure:
            return [f"step({step_name}): {failure}"]
        deadline = time.monotonic() + timeout
        deferred: list[Write] | None = None if run.deferred is None else []
        context = StepContext(blueprint, name, node, inputs, scope, run, deadline, deferred)
        future = self.pool.submit(component, context)
        try:
            attributes = future.result(timeout=timeout)
        except (FutureTimeout, StepTimedOut):
            return [f"step({step_name}): timed out after {timeout} s"]
        except StepFailed as failure:
            scope.attributes[name] = failure.attributes
            return [f"step({step_name}): {error}" for error in failure.errors]
        except (ApiError, WriteConflict) as failure:  # malformed CBA content (a mapping file), a lost race
            return [f"step({step_name}): {failure.message}"]
        except Exception:  # a bug: the step fails, the run goes on along its edges
            log.exception("step %s of node template %s failed unexpectedly", step_name, name)
            return [f"step({step_name}): internal error"]
        scope.attributes[name] = attributes
        if run.deferred is not None and deferred:
            run.deferred.extend(deferred)
        return []


def _workflow_inputs(workflow: Workflow, block: dict[str, Any], action: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, prop in (workflow.inputs or {}).items():
        if name == f"{action}-properties":
            continue
        values[name] = block.get(name, prop.default)
    return values


def _operation(
    blueprint: LoadedBlueprint, name: str, node: NodeTemplate, scope: Scope
) -> tuple[dict[str, Any], float]:
    """The first operation of the node template's first interface: its inputs (the node type's
    defaults overlaid with the template's values, expressions resolved) and its timeout."""
    interface_name, interface = next(iter((node.interfaces or {}).items()), (None, None))
    operations = (interface.operations or {}) if interface else {}
    operation_name, operation = next(iter(operations.items()), (None, None))
    declared = _declared_operation(blueprint, node.type, interface_name, operation_name)
    inputs = (
        {key: prop.default for key, prop in (declared.inputs or {}).items() if prop.default is not None}
        if declared
        else {}
    )
    inputs.update((operation.inputs or {}) if operation else {})
    implementation: Implementation | None = (operation.implementation if operation else None) or (
        declared.implementation if declared else None
    )
    timeout = implementation.timeout if implementation else DEFAULT_TIMEOUT_S
    resolved = scope.resolve_each(inputs, name)
    return resolved, float(timeout if timeout > 0 else DEFAULT_TIMEOUT_S)


def _declared_operation(
    blueprint: LoadedBlueprint, type_name: str, interface: str | None, operation: str | None
) -> Any:
    node_type = blueprint.node_types.get(type_name)
    if node_type is None or interface is None or operation is None:
        return None
    declared = (node_type.interfaces or {}).get(interface)
    return (declared.operations or {}).get(operation) if declared else None


class _Walk:
    """One walk of a workflow's step graph."""

    def __init__(
        self,
        engine: Engine,
        blueprint: LoadedBlueprint,
        steps: Mapping[str, Step],
        scope: Scope,
        run: RunInfo,
    ) -> None:
        self.engine, self.blueprint, self.steps, self.scope, self.run = engine, blueprint, steps, scope, run
        self.incoming: dict[str, list[bool | None]] = {name: [] for name in steps}
        for step in steps.values():
            for target in [*(step.on_success or []), *(step.on_failure or [])]:
                self.incoming[target].append(None)
        self.expected = {name: len(edges) for name, edges in self.incoming.items()}
        self.handled: list[str] = []

    def walk(self) -> list[str]:
        ready = [name for name, count in self.expected.items() if count == 0]
        decided: dict[str, list[bool]] = {name: [] for name in self.steps}
        for name in ready:
            decided[name].append(True)  # the edge from START
        while ready:
            name = ready.pop(0)
            step = self.steps[name]
            taken = any(decided[name])
            success = True
            if taken:
                errors = self.engine.run_step(self.blueprint, name, step, self.scope, self.run)
                success = not errors
                if errors and not step.on_failure:
                    return [*errors, f"node({name}) outgoing edge(FAILURE) is missing."]
                self.handled.extend(errors)
            follow = step.on_success if success else step.on_failure
            other = step.on_failure if success else step.on_success
            for target, was_taken in [
                *((t, taken) for t in follow or []),
                *((t, False) for t in other or []),
            ]:
                decided[target].append(was_taken)
                if len(decided[target]) == self.expected[target]:
                    ready.append(target)
        return []  # completed: errors an on_failure edge handled are dropped
