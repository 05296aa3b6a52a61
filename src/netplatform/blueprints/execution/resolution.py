"""``component-resource-resolution``: a template filled from a mapping of named values, each
resolved from its source (reference execution.md section 4).

For each occurrence 1..N and each prefix P of ``artifact-prefix-names``: read ``P-mapping``;
reuse values stored under the same key (unless ``force-resolution``); resolve the others in
``dependencies`` order from their sources; render ``P-template`` (or the values as JSON); store
the template and the values when ``store-result`` is set. Nothing is stored when a required
value is missing: the step fails with ``Failed to resolve required values: [...]``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from ...clock import utc_now
from ..catalog.tosca import ResourceAssignment
from ..repository.resolution_keys import ResolutionKey
from ..repository.resolved_resources import ResourceRecord
from ..repository.resolved_templates import TemplateRecord
from .engine import StepContext, StepFailed
from .render_pool import RenderJob, RenderPool, StepRenders
from .results import ResolutionResults, saving
from .sources import Resolved, SourceFailed, Sources
from .templates import JINJA, VELOCITY
from .velocity import TemplateFailed

SUCCESS = "success"
FAILURE = "failure"
MAPPING_SUFFIX = "-mapping"
TEMPLATE_SUFFIX = "-template"
MAX_OCCURRENCE = 1000
MAX_PREFIXES = 100


@dataclass(frozen=True)
class Request:
    """The operation inputs of a resolution step, checked."""

    prefixes: list[str]
    resolution_key: str
    resource_id: str
    resource_type: str
    store: bool
    force: bool
    occurrence: int
    summary: bool

    @classmethod
    def of(cls, inputs: dict[str, Any]) -> Request:
        prefixes = inputs.get("artifact-prefix-names")
        if isinstance(prefixes, str):  # sometimes given as a JSON text
            try:
                prefixes = json.loads(prefixes)
            except ValueError:
                prefixes = [prefixes]
        if (
            not isinstance(prefixes, list)
            or not prefixes
            or not all(isinstance(p, str) and p for p in prefixes)
        ):
            raise StepFailed("artifact-prefix-names must be a non-empty list of names")
        if len(prefixes) > MAX_PREFIXES:
            raise StepFailed(f"artifact-prefix-names names more than {MAX_PREFIXES} prefixes")
        occurrence = _integer(inputs.get("occurrence"), 1, "occurrence")
        if occurrence > MAX_OCCURRENCE:
            raise StepFailed(f"occurrence ({occurrence}) is larger than {MAX_OCCURRENCE}")
        return cls(
            prefixes=prefixes,
            resolution_key=_text(inputs.get("resolution-key")),
            resource_id=_text(inputs.get("resource-id")),
            resource_type=_text(inputs.get("resource-type")),
            store=_flag(inputs.get("store-result")),
            force=_flag(inputs.get("force-resolution")),
            occurrence=occurrence,
            summary=_flag(inputs.get("resolution-summary")),
        )

    def check_keys(self) -> None:
        """The reference's exact messages for the keys a stored resolution needs."""
        if not self.store:
            return
        key, rid, rtype = bool(self.resolution_key), bool(self.resource_id), bool(self.resource_type)
        prefix = "Can't proceed with the resolution: "
        if key and (rid or rtype):
            raise StepFailed(
                prefix + "either provide resolution-key OR combination of resource-id and resource-type."
            )
        if rid != rtype:
            raise StepFailed(
                prefix + "both resource-id and resource-type should be provided, one of them is missing."
            )
        if not key and not rid:
            raise StepFailed(
                prefix
                + "can't persist resolution without a correlation key. Either provide a resolution-key "
                "OR combination of resource-id and resource-type OR set `storeResult` to false."
            )


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


def _integer(value: Any, default: int, name: str) -> int:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise StepFailed(f"{name} ({value}) is not an integer") from None


@dataclass
class _Outcome:
    """One prefix at one occurrence."""

    content: str
    values: dict[str, Any]
    records: list[ResourceRecord] = field(default_factory=list)
    template: TemplateRecord | None = None


class ResourceResolution:
    """The component: ``__call__(context)`` answers the node's attributes or raises StepFailed."""

    def __init__(self, results: ResolutionResults, sources: Sources, renderers: RenderPool) -> None:
        self.results = results
        self.sources = sources
        self.renderers = renderers

    def __call__(self, context: StepContext) -> dict[str, Any]:
        request = Request.of(context.inputs)
        request.check_keys()
        occurrences = self._occurrences(context, request)
        outcomes: dict[int, dict[str, _Outcome]] = {}
        errors: list[str] = []
        renders = self.renderers.for_step(context.blueprint.name, context.deadline)
        for occurrence in occurrences:
            outcomes[occurrence] = {}
            for prefix in request.prefixes:
                context.check_deadline()  # a step out of time stops here, not after every prefix
                try:
                    outcomes[occurrence][prefix] = self._resolve(
                        context, request, prefix, occurrence, renders
                    )
                except StepFailed as failure:
                    errors.extend(failure.errors)
        attributes = _attributes(outcomes, nested=request.occurrence != 1)
        if errors:
            raise StepFailed(*errors, attributes={**attributes, "status": FAILURE})
        if request.store:
            self._store(context, request, outcomes)
        return {**attributes, "status": SUCCESS}

    def _occurrences(self, context: StepContext, request: Request) -> list[int]:
        if request.occurrence >= 1:
            return list(range(1, request.occurrence + 1))
        if not request.store:
            return [1]
        stored = self.results.occurrences(self._key(context, request, request.prefixes[0], 1))
        return [(stored[0] if stored else 0) + 1]  # "always new": the next free occurrence

    def _key(self, context: StepContext, request: Request, prefix: str, occurrence: int) -> ResolutionKey:
        by_key = bool(request.resolution_key)
        return ResolutionKey(
            blueprint_name=context.blueprint.name,
            blueprint_version=context.blueprint.version,
            artifact_name=prefix,
            resolution_key=request.resolution_key if by_key else "",
            resource_type="" if by_key else request.resource_type,
            resource_id="" if by_key else request.resource_id,
            occurrence=occurrence,
        )

    def _resolve(
        self, context: StepContext, request: Request, prefix: str, occurrence: int, renders: StepRenders
    ) -> _Outcome:
        assignments = self._mapping(context, prefix)
        key = self._key(context, request, prefix, occurrence)
        reused = {}
        if request.store and not request.force:
            stored = self.results.stored(key)
            reused = {record.name: record for record in stored if record.status == SUCCESS}
        pass_ = _Pass(context, self.sources, renders, prefix, occurrence, key)
        for assignment in _ordered(assignments, prefix):
            record = reused.get(assignment.name)
            if record is not None:
                pass_.reuse(assignment, record)
            else:
                pass_.resolve(assignment)
        pass_.fail_on_missing()
        content = self._content(context, request, prefix, pass_, occurrence, renders)
        now = utc_now()
        template = TemplateRecord(key=key, result=content, id=str(uuid.uuid4()), created_date=now)
        return _Outcome(content, pass_.public_values(), pass_.records(now), template)

    def _mapping(self, context: StepContext, prefix: str) -> list[ResourceAssignment]:
        artifact = (context.node.artifacts or {}).get(prefix + MAPPING_SUFFIX)
        if artifact is None:
            raise StepFailed(
                f"node template ({context.node_name}) has no artifact ({prefix}{MAPPING_SUFFIX})"
            )
        if not context.blueprint.cba.archive.has(artifact.file):
            raise StepFailed(f"couldn't find file ({artifact.file}) of artifact ({prefix}{MAPPING_SUFFIX})")
        return context.blueprint.assignments(artifact.file)

    def _content(
        self,
        context: StepContext,
        request: Request,
        prefix: str,
        pass_: _Pass,
        occurrence: int,
        renders: StepRenders,
    ) -> str:
        artifact = (context.node.artifacts or {}).get(prefix + TEMPLATE_SUFFIX)
        if artifact is not None:
            if not context.blueprint.cba.archive.has(artifact.file):
                raise StepFailed(
                    f"couldn't find file ({artifact.file}) of artifact ({prefix}{TEMPLATE_SUFFIX})"
                )
            try:
                text, files = context.blueprint.template_source(artifact.type, artifact.file)
                data = pass_.template_values(jinja=artifact.type == JINJA)
                key = context.blueprint.model_id if files else ""
                job = RenderJob(artifact.type, artifact.file, text, data, occurrence, files, key)
                return renders.render(job)
            except TemplateFailed as failure:
                raise StepFailed(f"template of ({prefix}) failed: {failure}") from None
        if request.summary:
            return json.dumps(pass_.summary(), indent=2)
        return json.dumps(pass_.data_values(), indent=2, sort_keys=True)

    def _store(
        self, context: StepContext, request: Request, outcomes: dict[int, dict[str, _Outcome]]
    ) -> None:
        cleared: list[ResolutionKey] = []
        kept: list[TemplateRecord] = []
        values: list[ResourceRecord] = []
        for by_prefix in outcomes.values():
            for outcome in by_prefix.values():
                assert outcome.template is not None
                cleared.append(outcome.template.key)
                kept.append(outcome.template)
                values.extend(outcome.records)
        context.write(saving(cleared if request.force else [], kept, values), self.results.run)


def _attributes(outcomes: dict[int, dict[str, _Outcome]], nested: bool) -> dict[str, Any]:
    def params(by_prefix: dict[str, _Outcome]) -> dict[str, Any]:
        return {prefix: outcome.content for prefix, outcome in by_prefix.items()}

    def values(by_prefix: dict[str, _Outcome]) -> dict[str, Any]:
        return {prefix: outcome.values for prefix, outcome in by_prefix.items()}

    if not nested and len(outcomes) == 1:
        (only,) = outcomes.values()
        return {"assignment-params": params(only), "assignment-map": values(only)}
    return {
        "assignment-params": {str(n): params(by_prefix) for n, by_prefix in outcomes.items()},
        "assignment-map": {str(n): values(by_prefix) for n, by_prefix in outcomes.items()},
    }


def _ordered(assignments: list[ResourceAssignment], prefix: str) -> list[ResourceAssignment]:
    """The assignments, each after its dependencies; a cycle or an unknown dependency fails."""
    by_name = {assignment.name: assignment for assignment in assignments}
    ordered: list[ResourceAssignment] = []
    state: dict[str, int] = {}  # 1: being visited, 2: done
    for assignment in assignments:
        stack: list[tuple[str, list[str]]] = [(assignment.name, [])]
        while stack:
            name, path = stack[-1]
            if state.get(name) == 2:
                stack.pop()
                continue
            state[name] = 1
            pending = [dep for dep in (by_name[name].dependencies or []) if state.get(dep) != 2]
            for dep in pending:
                if dep not in by_name:
                    raise StepFailed(f"{prefix}{MAPPING_SUFFIX}: ({name}) depends on unknown ({dep})")
                if state.get(dep) == 1:
                    cycle = " -> ".join([*path, name, dep])
                    raise StepFailed(f"{prefix}{MAPPING_SUFFIX}: cyclic dependency {cycle}")
            if pending:
                stack.append((pending[0], [*path, name]))
                continue
            state[name] = 2
            ordered.append(by_name[name])
            stack.pop()
    return ordered


class _Pass:
    """One prefix at one occurrence being resolved: the values so far, their sources, their fate."""

    def __init__(
        self,
        context: StepContext,
        sources: Sources,
        renderers: StepRenders,
        prefix: str,
        occurrence: int,
        key: ResolutionKey,
    ) -> None:
        self.context, self.sources, self.renderers = context, sources, renderers
        self.prefix, self.occurrence, self.key = prefix, occurrence, key
        self.resolved: dict[str, Resolved] = {}
        self.order: list[ResourceAssignment] = []
        self.messages: list[str] = []

    def reuse(self, assignment: ResourceAssignment, record: ResourceRecord) -> None:
        self.order.append(assignment)
        prop_type = assignment.property.type if assignment.property else "string"
        value = self.sources.typed(record.value, prop_type, from_text=True)
        self.resolved[assignment.name] = Resolved(
            value, record.dictionary_source or "", record.dictionary_name or ""
        )

    def resolve(self, assignment: ResourceAssignment) -> None:
        self.order.append(assignment)
        known = {name: found.value for name, found in self.resolved.items()}
        try:
            found = self.sources.resolve(assignment, self.context, known, self.key)
        except SourceFailed as failure:
            self.messages.append(str(failure))
            found = Resolved(
                None, assignment.dictionary_source or "", assignment.dictionary_name or assignment.name
            )
        if found.value is not None:
            found = self._transformed(assignment, found, known)
        self.resolved[assignment.name] = found

    def _transformed(
        self, assignment: ResourceAssignment, found: Resolved, known: dict[str, Any]
    ) -> Resolved:
        metadata = (assignment.property.metadata if assignment.property else None) or {}
        transform = metadata.get("transform-template")
        if not isinstance(transform, str):
            return found
        data = {**known, assignment.name: found.value}
        name = f"transform-template of {assignment.name}"
        job = RenderJob(VELOCITY, name, transform, data, self.occurrence)
        try:
            text = self.renderers.render(job)
        except TemplateFailed as failure:
            self.messages.append(str(failure))
            return Resolved(None, found.source, found.dictionary)
        return Resolved(text, found.source, found.dictionary)

    def fail_on_missing(self) -> None:
        missing = [
            a.name
            for a in self.order
            if self.resolved[a.name].value is None and a.property is not None and a.property.required
        ]
        if missing:
            raise StepFailed(f"Failed to resolve required values: [{', '.join(missing)}]", *self.messages)

    def public_values(self) -> dict[str, Any]:
        return {a.name: self.resolved[a.name].value for a in self.order}

    def data_values(self) -> dict[str, Any]:
        """Unresolved values as the literal text ``${name}``, as the reference writes them."""
        return {
            name: ("${" + name + "}" if found.value is None else found.value)
            for name, found in self.resolved.items()
        }

    def template_values(self, *, jinja: bool) -> dict[str, Any]:
        if jinja:  # an unresolved {{ name }} stays as written
            return {name: found.value for name, found in self.resolved.items() if found.value is not None}
        return self.data_values()

    def summary(self) -> list[dict[str, Any]]:
        return [
            {
                "name": a.name,
                "value": self.resolved[a.name].value,
                "required": bool(a.property and a.property.required),
                "type": a.property.type if a.property else None,
                "dictionary-name": self.resolved[a.name].dictionary,
                "dictionary-source": self.resolved[a.name].source,
                "status": SUCCESS if self.resolved[a.name].value is not None else FAILURE,
            }
            for a in self.order
        ]

    def records(self, now: Any) -> list[ResourceRecord]:
        return [
            ResourceRecord(
                key=self.key,
                name=a.name,
                value=""
                if self.resolved[a.name].value is None
                else _stored_text(self.resolved[a.name].value),
                status=SUCCESS if self.resolved[a.name].value is not None else FAILURE,
                dictionary_name=self.resolved[a.name].dictionary or a.dictionary_name or a.name,
                dictionary_source=self.resolved[a.name].source or a.dictionary_source,
                dictionary_version=0,
                id=str(uuid.uuid4()),
                created_date=now,
            )
            for a in self.order
        ]


def _stored_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)
