"""Where one assignment's value comes from (reference execution.md 4.4).

``input`` and ``default`` need no dictionary. Any other ``dictionary-source`` is a key of the
dictionary entry's ``sources`` (the CBA's ``Definitions/resources_definition_types.json``, else
the catalog's dictionary store), and the source's node type says what to do:

- ``source-input`` / ``source-default``: as above;
- ``source-rest``: ``GET`` on an endpoint the operator configured (:mod:`.rest_sources`; the
  platform's config tree, ``sdnc``, read as the run's caller), ``$name`` in ``url-path`` and
  ``path`` filled from ``input-key-mapping``, ``path`` a JSON pointer into the answer,
  ``output-key-mapping`` picking fields;
- ``source-db`` of ``type`` ``resolved-resource``: a value stored in the catalog's resolved
  resource store (``query`` names it, ``input-key-mapping`` may name the blueprint, artifact,
  resolution key or resource, occurrence; by default this run's);
- ``source-db`` of ``type`` ``SQL`` and ``source-capability``: refused (SQL over someone's
  database, and code carried by the CBA).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..catalog.tosca import NodeTemplate, ResourceAssignment, ResourceDefinition
from ..repository.resolution_keys import ResolutionKey
from ..repository.resolved_resources import ResourceQuery
from .engine import StepContext
from .rest_sources import RestFailed, RestSources
from .results import ResolutionResults

INPUT = "input"
DEFAULT = "default"
STORED_VALUE = "resolved-resource"
_VARIABLE = re.compile(r"\$\{([A-Za-z0-9_.-]+)\}|\$([A-Za-z0-9_-]+)")


class SourceFailed(Exception):
    pass


@dataclass(frozen=True)
class Resolved:
    value: Any
    source: str
    dictionary: str


class Sources:
    def __init__(
        self,
        rest: RestSources,
        results: ResolutionResults,
        catalog_definition: Callable[[str], ResourceDefinition | None],
    ) -> None:
        self.rest = rest
        self.results = results
        self.catalog_definition = catalog_definition

    def resolve(
        self, assignment: ResourceAssignment, context: StepContext, known: dict[str, Any], key: ResolutionKey
    ) -> Resolved:
        source = assignment.dictionary_source or INPUT
        dictionary = assignment.dictionary_name or assignment.name
        prop_type = assignment.property.type if assignment.property else "string"
        if source == INPUT:
            return Resolved(_given(assignment, context), source, dictionary)
        if source == DEFAULT:
            return Resolved(_default(assignment, context), source, dictionary)
        node = self._source_node(assignment.name, dictionary, source, context)
        if node.type == "source-input":
            value = _given(assignment, context)
        elif node.type == "source-default":
            value = _default(assignment, context)
        elif node.type == "source-rest":
            value = self._rest(assignment, node, source, context, known, prop_type)
        elif node.type == "source-db":
            value = self._stored(assignment, node, source, context, known, key, prop_type)
        elif node.type == "source-capability":
            raise SourceFailed(
                f"({assignment.name}): capability sources run code carried by the CBA and are not supported"
            )
        else:
            raise SourceFailed(f"({assignment.name}): source type ({node.type}) is not supported")
        return Resolved(value, source, dictionary)

    def _source_node(self, name: str, dictionary: str, source: str, context: StepContext) -> NodeTemplate:
        definition = context.blueprint.resource_definitions().get(dictionary) or self.catalog_definition(
            dictionary
        )
        if definition is None:
            raise SourceFailed(f"({name}): failed to get resource dictionary ({dictionary})")
        node = definition.sources.get(source)
        if node is None:
            raise SourceFailed(f"({name}): resource dictionary ({dictionary}) has no source ({source})")
        return node

    def _rest(
        self,
        assignment: ResourceAssignment,
        node: NodeTemplate,
        source: str,
        context: StepContext,
        known: dict[str, Any],
        prop_type: str,
    ) -> Any:
        props = node.properties or {}
        verb = str(props.get("verb") or "GET").upper()
        if verb != "GET":
            raise SourceFailed(f"({assignment.name}): REST source verb ({verb}) is not supported, only GET")
        variables = _key_values(props, context, known)
        if variables is None:
            return None  # a key it depends on is unresolved
        url_path = _fill(str(props.get("url-path") or ""), variables, encode=True)
        pointer = _fill(str(props.get("path") or ""), variables, encode=False)
        selector = str(props.get("endpoint-selector") or source)
        try:
            document = self.rest.get_json(selector, url_path, context.run.caller)
        except RestFailed as failure:
            raise SourceFailed(f"({assignment.name}): {failure}") from None
        value = json_pointer(document, pointer)
        mapping = props.get("output-key-mapping")
        if isinstance(value, dict) and isinstance(mapping, dict) and mapping:
            if is_primitive(prop_type):
                value = value.get(str(mapping.get(assignment.name) or next(iter(mapping.values()))))
            else:
                value = {out: value.get(str(field)) for out, field in mapping.items()}
        return None if value is None else typed(value, prop_type, from_text=False)

    def _stored(
        self,
        assignment: ResourceAssignment,
        node: NodeTemplate,
        source: str,
        context: StepContext,
        known: dict[str, Any],
        key: ResolutionKey,
        prop_type: str,
    ) -> Any:
        props = node.properties or {}
        kind = str(props.get("type") or "")
        if kind.upper() == "SQL":
            raise SourceFailed(f"({assignment.name}): SQL sources ({source}) are not supported")
        if kind != STORED_VALUE:
            raise SourceFailed(
                f"({assignment.name}): source-db type ({kind}) is not supported, only {STORED_VALUE}"
            )
        given = _key_values(props, context, known)
        if given is None:
            return None
        by_key = given.get("resolution-key", key.resolution_key)
        query = ResourceQuery(
            blueprint_name=str(given.get("blueprint-name", key.blueprint_name)),
            blueprint_version=str(given.get("blueprint-version", key.blueprint_version)),
            artifact_name=str(given.get("artifact-name", key.artifact_name)),
            resolution_key=str(by_key) if by_key else None,
            resource_type=None if by_key else str(given.get("resource-type", key.resource_type)),
            resource_id=None if by_key else str(given.get("resource-id", key.resource_id)),
            name=str(props.get("query") or assignment.name),
        )
        try:
            occurrence = int(given.get("occurrence", key.occurrence))
        except (TypeError, ValueError):
            raise SourceFailed(f"({assignment.name}): occurrence is not an integer") from None
        record = self.results.value(query, occurrence)
        return None if record is None else typed(record.value, prop_type, from_text=True)

    @staticmethod
    def typed(value: Any, prop_type: str, *, from_text: bool) -> Any:
        return typed(value, prop_type, from_text=from_text)


def _given(assignment: ResourceAssignment, context: StepContext) -> Any:
    """The request's value: ``<action>-properties`` first, then the request block itself."""
    properties = context.properties()
    for name in (assignment.name, assignment.dictionary_name):
        if name and name in properties:
            return properties[name]
    for name in (assignment.name, assignment.dictionary_name):
        if name and name in context.scope.request_block:
            return context.scope.request_block[name]
    return None


def _default(assignment: ResourceAssignment, context: StepContext) -> Any:
    given = _given(assignment, context)
    if given is not None:
        return given
    return assignment.property.default if assignment.property else None


def _key_values(props: dict[str, Any], context: StepContext, known: dict[str, Any]) -> dict[str, Any] | None:
    """``input-key-mapping`` (parameter -> name of a value resolved before, or of an input); None
    when one of them is unresolved."""
    mapping = props.get("input-key-mapping") or {}
    if not isinstance(mapping, dict):
        raise SourceFailed("input-key-mapping must be an object")
    values: dict[str, Any] = {}
    for parameter, name in mapping.items():
        value = known.get(str(name))
        if value is None:
            value = context.properties().get(str(name), context.scope.input(str(name)))
        if value is None:
            return None
        values[str(parameter)] = value
    return values


def _fill(text: str, values: dict[str, Any], *, encode: bool) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in values:
            return match.group(0)
        value = values[name] if isinstance(values[name], str) else json.dumps(values[name])
        return quote(value, safe="") if encode else value

    return _VARIABLE.sub(replace, text)


def json_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901; "" (or "/") is the whole document; a missing member is None."""
    if pointer in ("", "/"):
        return document
    if not pointer.startswith("/"):
        raise SourceFailed(f"path ({pointer}) is not a JSON pointer")
    found = document
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(found, dict):
            found = found.get(token)
        elif isinstance(found, list) and token.isdigit() and int(token) < len(found):
            found = found[int(token)]
        else:
            return None
    return found


PRIMITIVES = ("string", "integer", "float", "double", "boolean", "timestamp")


def is_primitive(prop_type: str) -> bool:
    return prop_type in PRIMITIVES


def typed(value: Any, prop_type: str, *, from_text: bool) -> Any:
    """A value as its property type says (text read back from the store, or a REST answer)."""
    try:
        if prop_type in ("string", "timestamp"):
            return value if isinstance(value, str) else json.dumps(value)
        if prop_type == "integer" and not isinstance(value, bool):
            return int(value)
        if prop_type in ("float", "double") and not isinstance(value, bool):
            return float(value)
        if prop_type == "boolean":
            return value.strip().lower() == "true" if isinstance(value, str) else bool(value)
        if from_text and isinstance(value, str):
            return json.loads(value)
    except (TypeError, ValueError):
        return value
    return value
