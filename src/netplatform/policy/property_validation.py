"""Policy property values against their policy type and data types (issue 17).

The reference stores policy properties unchecked (reference 4.1); here each policy's
``properties`` must fit its type: the properties declared by the type and its ancestors (a
child's definition wins), their TOSCA types (primitives, ``list``/``map`` with
``entry_schema``/``key_schema``, data types with their own properties and constraints, all
recursively) and their constraints. Every problem is reported, each with its property path.

Deliberately lenient where real policies need it: properties a type does not declare are
accepted (TOSCA types such as ``platform.policies.Native`` declare none and their policies carry
free content); a single value where a list is expected is read as a one-entry list (real
optimization policies rely on it); a required property with a ``default`` may be left out; a
policy naming a metadata set (``metadataSetName``) may leave required properties out, since its
implementation data lives in the node template (spec 2.4); a ``null`` value counts as absent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import yaml

from .model import Entity, Kind, is_root
from .references import KnownEntities
from .versions import NULL_VERSION, Reference

MAX_PROBLEMS = 500
"""A bound on the problems reported for one request, so a huge wrong list answers quickly."""

PathStep = str | int
_PLAIN_STEP = re.compile(r"[A-Za-z0-9_\-]+\Z")
_TIMESTAMP = yaml.constructor.SafeConstructor.timestamp_regexp
_SCALAR_UNIT = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*([A-Za-z]+)\s*\Z")
_SCALAR_UNITS: dict[str, dict[str, float]] = {
    "scalar-unit.size": {
        "b": 1, "kb": 1e3, "kib": 2**10, "mb": 1e6, "mib": 2**20,
        "gb": 1e9, "gib": 2**30, "tb": 1e12, "tib": 2**40,
    },
    "scalar-unit.time": {"d": 86400, "h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9},
    "scalar-unit.frequency": {"hz": 1, "khz": 1e3, "mhz": 1e6, "ghz": 1e9},
}  # fmt: skip


@dataclass(frozen=True)
class Problem:
    """One property value that does not fit its definition."""

    path: tuple[PathStep, ...]
    value: object
    reason: str

    @property
    def item(self) -> str:
        """The path as written in messages: ``properties.a['dotted.name'][0].b``."""
        text = ""
        for step in self.path:
            if isinstance(step, int):
                text += f"[{step}]"
            elif _PLAIN_STEP.match(step):
                text += f".{step}" if text else step
            else:
                text += f"['{step}']"
        return text

    @property
    def shown_value(self) -> str:
        return self.value if isinstance(self.value, str) else json.dumps(self.value, separators=(",", ":"))


class PropertyValidator:
    """Checks policies against the types ``known`` resolves (payload first, then the store)."""

    def __init__(self, known: KnownEntities) -> None:
        self.known = known
        self.problems: list[Problem] = []

    def policy_problems(self, policy: Entity) -> list[Problem]:
        """Every problem of one policy's properties (none when its type cannot be resolved)."""
        self.problems = []
        reference = policy.type_reference
        policy_type = self.known.resolve(Kind.POLICY_TYPE, reference) if reference else None
        if policy_type is None:
            return []  # reported by the reference rules (reference 4.1 step 8)
        definitions = self._inherited_properties(Kind.POLICY_TYPE, policy_type)
        values = policy.body.get("properties") or {}
        self._check_properties(("properties",), values, definitions, required=policy.metadata_set is None)
        return self.problems

    # --- definitions ------------------------------------------------------------------------

    def _inherited_properties(self, kind: Kind, entity: Entity) -> dict[str, dict[str, Any]]:
        """The properties of ``entity`` and its ancestors; a descendant's definition wins."""
        merged: dict[str, dict[str, Any]] = {}
        for ancestor in [*reversed(list(self.known.lineage(kind, entity))), entity]:
            merged.update(ancestor.body.get("properties") or {})
        return merged

    def _report(self, path: tuple[PathStep, ...], value: object, reason: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(path, value, reason))

    # --- values -----------------------------------------------------------------------------

    def _check_properties(
        self,
        path: tuple[PathStep, ...],
        values: Mapping[str, Any],
        definitions: Mapping[str, Mapping[str, Any]],
        *,
        required: bool = True,
    ) -> None:
        for name, definition in definitions.items():
            value = values.get(name)
            if value is not None:
                self._check((*path, name), value, definition)
            elif required and definition.get("required") and "default" not in definition:
                self._report((*path, name), None, "is required but not present")

    def _check(self, path: tuple[PathStep, ...], value: Any, schema: Mapping[str, Any]) -> None:
        """``value`` against a property definition or an entry/key schema."""
        type_name: str = schema["type"]
        if type_name == "list" and not isinstance(value, list):
            # A lone entry stands for a one-entry list: real optimization policies write
            # ``applicableResources: any`` and HPA attributes ``operator: '='``.
            value = [value]
        if not self._check_type(path, value, Reference(type_name, _exact(schema.get("type_version")))):
            return  # of the wrong kind: its constraints and entries would only repeat that
        self._check_constraints(path, value, schema.get("constraints") or [], type_name)
        entry_schema = schema.get("entry_schema")
        if entry_schema and isinstance(value, list):
            for index, item in enumerate(value):
                self._check((*path, index), item, entry_schema)
        if isinstance(value, dict):
            key_schema = schema.get("key_schema")
            for key, item in value.items():
                if key_schema:
                    self._check((*path, key), key, key_schema)
                if entry_schema:
                    self._check((*path, key), item, entry_schema)

    def _check_type(self, path: tuple[PathStep, ...], value: Any, reference: Reference) -> bool:
        """True when ``value`` is of the type named (data types: their properties checked too)."""
        primitive = PRIMITIVES.get(reference.name)
        if primitive is not None:
            fits, reason = primitive
            if not fits(value):
                self._report(path, value, reason)
                return False
            return True
        if is_root(reference.name):
            return True
        data_type = self.known.resolve(Kind.DATA_TYPE, reference)
        if data_type is None:
            return True  # reported by the reference rules (reference 4.1 step 8)
        return self._check_data_type(path, value, data_type)

    def _check_data_type(self, path: tuple[PathStep, ...], value: Any, data_type: Entity) -> bool:
        """A map holding the data type's properties, within its own (and its parents') constraints."""
        if not isinstance(value, dict):
            self._report(path, value, f"is not a map (data type {data_type.name})")
            return False
        self._check_properties(path, value, self._inherited_properties(Kind.DATA_TYPE, data_type))
        for entity in [data_type, *self.known.lineage(Kind.DATA_TYPE, data_type)]:
            self._check_constraints(path, value, entity.body.get("constraints") or [], data_type.name)
        return True

    def _check_constraints(
        self, path: tuple[PathStep, ...], value: Any, constraints: Sequence[Mapping[str, Any]], type_name: str
    ) -> None:
        for constraint in constraints:
            for operator, bound in constraint.items():
                reason = constraint_violation(operator, bound, value, type_name)
                if reason is not None:
                    self._report(path, value, reason)


def constraint_violation(operator: str, bound: Any, value: Any, type_name: str = "") -> str | None:
    """Why ``value`` breaks the constraint ``{operator: bound}``, or None when it does not."""
    if operator == "equal":
        return None if _same(value, bound) else f"is not equal to {_shown(bound)}"
    if operator == "valid_values":
        return None if any(_same(value, item) for item in bound) else f"is not one of {_shown(bound)}"
    if operator in _COMPARISONS:
        holds, wording = _COMPARISONS[operator]
        order = _compare(value, bound, type_name)
        if order is None:
            return f"cannot be compared with {_shown(bound)}"
        return None if holds(order) else f"is not {wording} {_shown(bound)}"
    if operator == "in_range":
        low, high = _compare(value, bound[0], type_name), _compare(value, bound[1], type_name)
        if bound[1] == "UNBOUNDED":  # TOSCA: no upper bound
            high = -1
        if low is None or high is None:
            return f"cannot be compared with the range {_shown(bound)}"
        return None if low >= 0 and high <= 0 else f"is not in the range {_shown(bound)}"
    if operator in _LENGTHS:
        return _length_violation(operator, bound, value)
    if operator == "pattern":
        if not isinstance(value, str):
            return "is not a string, so cannot match a pattern"
        return None if re.fullmatch(bound, value) else f"does not match the pattern {bound}"
    return None


def _length_violation(operator: str, bound: int, value: Any) -> str | None:
    if not isinstance(value, str | list | dict):
        return "has no length"
    holds, wording = _LENGTHS[operator]
    return None if holds(len(value), bound) else f"has length {len(value)}, {wording} {bound}"


_COMPARISONS: dict[str, tuple[Callable[[int], bool], str]] = {
    "greater_than": (lambda order: order > 0, "greater than"),
    "greater_or_equal": (lambda order: order >= 0, "greater than or equal to"),
    "less_than": (lambda order: order < 0, "less than"),
    "less_or_equal": (lambda order: order <= 0, "less than or equal to"),
}
_LENGTHS: dict[str, tuple[Callable[[int, int], bool], str]] = {
    "length": (lambda length, bound: length == bound, "expected"),
    "min_length": (lambda length, bound: length >= bound, "the minimum is"),
    "max_length": (lambda length, bound: length <= bound, "the maximum is"),
}


def _compare(value: Any, bound: Any, type_name: str) -> int | None:
    """-1, 0 or 1 as ``value`` is below, equal to or above ``bound``; None when not comparable.

    Numbers compare as numbers, scalar units by their magnitude in the base unit (``1 GB`` >
    ``512 MB``), other strings (timestamps, versions written alike) as text.
    """
    left: Any
    right: Any
    if _is_number(value) and _is_number(bound):
        left, right = value, bound
    elif type_name in _SCALAR_UNITS and (pair := _scalar_pair(value, bound, type_name)) is not None:
        left, right = pair
    elif isinstance(value, str) and isinstance(bound, str):
        left, right = value, bound
    else:
        return None
    return int(left > right) - int(left < right)


def _scalar_pair(value: Any, bound: Any, type_name: str) -> tuple[float, float] | None:
    left, right = scalar_magnitude(value, type_name), scalar_magnitude(bound, type_name)
    return None if left is None or right is None else (left, right)


def scalar_magnitude(value: Any, type_name: str) -> float | None:
    """``"2 GB"`` as a number of the base unit (bytes, seconds, hertz); None when malformed."""
    match = _SCALAR_UNIT.match(value) if isinstance(value, str) else None
    factor = _SCALAR_UNITS[type_name].get(match.group(2).lower()) if match else None
    if match is None or factor is None:
        return None
    return float(match.group(1)) * factor


def _same(value: Any, other: Any) -> bool:
    """Equality that keeps booleans apart from numbers (``true`` is not ``1``)."""
    if isinstance(value, bool) != isinstance(other, bool):
        return False
    return bool(value == other)


def _shown(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _exact(version: str | None) -> str | None:
    """A schema's type_version: ``0.0.0`` (the default) means any version."""
    return None if version in (None, NULL_VERSION) else version


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    """An integer; a JSON ``3.0`` is one too (JSON does not tell 3 from 3.0)."""
    return _is_number(value) and float(value).is_integer()


def _is_timestamp(value: Any) -> bool:
    """A YAML 1.1 / ISO 8601 timestamp, as TOSCA defines it (YAML ones arrive as text)."""
    if not isinstance(value, str):
        return False
    if _TIMESTAMP.match(value):
        return True
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_time_interval(value: Any) -> bool:
    """``tosca.datatypes.TimeInterval``: a map with ``start_time`` and ``end_time``.

    The times themselves are not parsed: real guard policies write times of day (``T00:00:00Z``),
    which are not TOSCA timestamps.
    """
    return isinstance(value, dict) and all(
        isinstance(value.get(field), str) for field in ("start_time", "end_time")
    )


def _scalar_unit(type_name: str) -> tuple[Callable[[Any], bool], str]:
    units = ", ".join(_SCALAR_UNITS[type_name])
    return (lambda value: scalar_magnitude(value, type_name) is not None, f"is not a {type_name} ({units})")


PRIMITIVES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "string": (lambda value: isinstance(value, str), "is not a string"),
    "integer": (_is_integer, "is not an integer"),
    "float": (_is_number, "is not a number"),
    "boolean": (lambda value: isinstance(value, bool), "is not a boolean"),
    "timestamp": (_is_timestamp, "is not a timestamp"),
    "null": (lambda value: value is None, "is not null"),
    "list": (lambda value: isinstance(value, list), "is not a list"),
    "map": (lambda value: isinstance(value, dict), "is not a map"),
    "object": (lambda value: True, ""),
    **{name: _scalar_unit(name) for name in _SCALAR_UNITS},
    "tosca.datatypes.TimeInterval": (_is_time_interval, "is not a time interval (start_time, end_time)"),
}
"""The predefined types (reference 3.2): what a value of each must be, and the reason when not."""


def policy_problems(policies: Sequence[Entity], known: KnownEntities) -> list[tuple[Entity, list[Problem]]]:
    """The policies whose properties do not fit their types, each with its problems."""
    validator = PropertyValidator(known)
    return [(policy, problems) for policy in policies if (problems := validator.policy_problems(policy))]
