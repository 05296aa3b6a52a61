"""Reading the fields of one TOSCA object: typed getters and property definitions.

Each reader returns the normalised value or raises 400 with a leaf line naming the field, so
the conversion in :mod:`tosca` reads like the table of reference 3.2.
"""

from __future__ import annotations

import re
from typing import Any

from ..web.errors import BadRequest
from .errors import item_line
from .versions import NULL_VERSION, check_name, check_version

TYPE_MISSING = "Type not specified, the type of this TOSCA entity must be specified in the type field"
TYPE_VERSION_MISSING = (
    "Version not specified, the version of this TOSCA entity must be specified in the type_version field"
)
PROPERTY_STATUSES = ("supported", "unsupported", "experimental", "deprecated")
SCALAR_CONSTRAINTS = ("equal", "greater_than", "greater_or_equal", "less_than", "less_or_equal")
LENGTH_CONSTRAINTS = ("length", "min_length", "max_length")


def invalid(field: str, value: object, reason: str) -> BadRequest:
    return BadRequest(item_line(field, value, reason))


def mapping(fields: dict[str, Any], field: str) -> dict[str, Any] | None:
    value = fields.get(field)
    if value is not None and not isinstance(value, dict):
        raise invalid(field, value, "is not a map")
    return value


def text(fields: dict[str, Any], field: str) -> str | None:
    value = fields.get(field)
    if value is not None and not isinstance(value, str):
        raise invalid(field, value, "is not a string")
    return value


def names(fields: dict[str, Any], field: str) -> list[str] | None:
    """A list of entity names (a policy type's ``targets``: node types and group types)."""
    value = fields.get(field)
    if value is None:
        return None
    if not isinstance(value, list):
        raise invalid(field, value, "is not a list")
    return [check_name(item, field) for item in value]


def boolean(fields: dict[str, Any], field: str, default: bool) -> bool:
    value = fields.get(field)
    if value is None:
        return default
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if not isinstance(value, bool):
        raise invalid(field, value, "is not a boolean")
    return value


def type_of(fields: dict[str, Any]) -> str:
    value = fields.get("type")
    if value is None or value == "":
        raise BadRequest(TYPE_MISSING)
    return check_name(value, "type")


def type_version_of(fields: dict[str, Any], *, required: bool) -> str:
    value = fields.get("type_version")
    if value is None or value == "":
        if required:
            raise BadRequest(TYPE_VERSION_MISSING)
        return NULL_VERSION
    return check_version(value, "type_version")


def string_map(fields: dict[str, Any], field: str) -> dict[str, str] | None:
    """A map of strings; scalar values are written as strings."""
    value = mapping(fields, field)
    if value is None:
        return None
    result = {}
    for key, item in value.items():
        if isinstance(item, dict | list):
            raise invalid(f"{field}.{key}", item, "is not a string")
        result[key] = item if isinstance(item, str) else _scalar_text(item)
    return result


def _scalar_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def properties(fields: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """The ``properties`` map of a type: name -> property definition."""
    definitions = mapping(fields, "properties")
    if definitions is None:
        return None
    result = {}
    for name, definition in definitions.items():
        if not isinstance(definition, dict):
            raise invalid(f"properties.{name}", definition, "is not a map")
        result[name] = _property(name, definition)
    return result


def _property(name: str, fields: dict[str, Any]) -> dict[str, Any]:
    try:
        type_name = type_of(fields)
    except BadRequest as error:
        raise BadRequest(f'property "{name}": {error.message}') from None
    status = text(fields, "status")
    if status is not None and status not in PROPERTY_STATUSES:
        raise invalid("status", status, f"is not one of {', '.join(PROPERTY_STATUSES)}")
    return without_nones(
        {
            "name": name,
            "type": type_name,
            "type_version": type_version_of(fields, required=False),
            "description": text(fields, "description"),
            "default": fields.get("default"),
            "required": boolean(fields, "required", False),
            "status": status,
            "constraints": constraints(fields),
            "key_schema": schema(fields, "key_schema"),
            "entry_schema": schema(fields, "entry_schema"),
            "metadata": string_map(fields, "metadata"),
        }
    )


def schema(fields: dict[str, Any], field: str) -> dict[str, Any] | None:
    """An entry or key schema: a type with optional version, description and constraints."""
    value = mapping(fields, field)
    if value is None:
        return None
    try:
        type_name = type_of(value)
    except BadRequest as error:
        raise BadRequest(f"{field}: {error.message}") from None
    return without_nones(
        {
            "name": text(value, "name"),
            "type": type_name,
            "type_version": type_version_of(value, required=False),
            "description": text(value, "description"),
            "constraints": constraints(value),
        }
    )


def constraints(fields: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The TOSCA constraints policy property values are checked against; other kinds are ignored.

    The reference keeps only the comparison constraints and ``valid_values`` (reference 3.2);
    the length and pattern constraints are kept too, since policies are now validated (issue 17).
    """
    value = fields.get("constraints")
    if value is None:
        return None
    if not isinstance(value, list):
        raise invalid("constraints", value, "is not a list")
    result = []
    for item in value:
        if not isinstance(item, dict):
            raise invalid("constraints", item, "is not a map")
        constraint = _constraint(item)
        if constraint:
            result.append(constraint)
    return result


def _constraint(item: dict[str, Any]) -> dict[str, Any]:
    constraint: dict[str, Any] = {}
    for name in SCALAR_CONSTRAINTS:
        if name in item:
            if isinstance(item[name], dict | list):
                raise invalid(name, item[name], "is not a scalar")
            constraint[name] = item[name]
    if "valid_values" in item:
        if not isinstance(item["valid_values"], list):
            raise invalid("valid_values", item["valid_values"], "is not a list")
        constraint["valid_values"] = item["valid_values"]
    if "in_range" in item:
        if not isinstance(item["in_range"], list) or len(item["in_range"]) != 2:
            raise invalid("in_range", item["in_range"], "is not a list of two values")
        constraint["in_range"] = item["in_range"]
    for name in LENGTH_CONSTRAINTS:
        if name in item:
            length = item[name]
            if isinstance(length, float) and length.is_integer():
                length = int(length)  # JSON does not tell 3 from 3.0
            if not isinstance(length, int) or isinstance(length, bool) or length < 0:
                raise invalid(name, length, "is not a non-negative integer")
            constraint[name] = length
    if "pattern" in item:
        constraint["pattern"] = _pattern(item["pattern"])
    return constraint


def _pattern(value: object) -> str:
    if not isinstance(value, str):
        raise invalid("pattern", value, "is not a string")
    try:
        re.compile(value)
    except re.error as error:
        raise invalid("pattern", value, f"is not a regular expression: {error}") from None
    return value


def without_nones(values: dict[str, Any]) -> dict[str, Any]:
    """JSON nulls are omitted from every answer (reference 1)."""
    return {key: value for key, value in values.items() if value is not None}
