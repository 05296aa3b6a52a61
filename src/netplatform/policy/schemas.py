"""Wire models of the policy API, for the OpenAPI document.

Requests are read by :mod:`tosca` (which needs the reference's messages, not pydantic's), and
answers are built by :mod:`answer_templates`; these models describe both shapes truthfully: every
TOSCA object admits more fields than listed (``extra="allow"``), as TOSCA does.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from .model import PREDEFINED_DATA_TYPES
from .versions import JSON_ENTITY_VERSION_PATTERN, JSON_NAME_PATTERN, JSON_VERSION_PATTERN


class ToscaEntity(BaseModel):
    """A data type, policy type, node type, policy or node template."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None
    version: str | None = None
    derived_from: str | None = None
    metadata: dict[str, Any] | None = None
    description: str | None = None
    type: str | None = None
    type_version: str | None = None
    properties: dict[str, Any] | None = None


class ToscaTopologyTemplate(BaseModel):
    model_config = ConfigDict(extra="allow")

    description: str | None = None
    node_templates: dict[str, ToscaEntity] | None = None
    policies: list[dict[str, ToscaEntity]] | None = None


class ToscaServiceTemplate(BaseModel):
    """The envelope of every policy-type, policy and node-template request and answer."""

    model_config = ConfigDict(extra="allow")

    tosca_definitions_version: str | None = None
    name: str | None = None
    version: str | None = None
    description: str | None = None
    data_types: dict[str, ToscaEntity] | None = None
    policy_types: dict[str, ToscaEntity] | None = None
    node_types: dict[str, ToscaEntity] | None = None
    topology_template: ToscaTopologyTemplate | None = None


class HealthReport(BaseModel):
    name: str
    url: str
    healthy: bool
    code: int
    message: str


class StatisticsReport(BaseModel):
    code: int
    totalApiCallCount: int
    apiCallSuccessCount: int
    apiCallFailureCount: int
    totalPolicyGetCount: int
    totalPolicyPostCount: int
    totalPolicyTypeGetCount: int
    totalPolicyTypePostCount: int
    policyGetSuccessCount: int
    policyGetFailureCount: int
    policyPostSuccessCount: int
    policyPostFailureCount: int
    policyTypeGetSuccessCount: int
    policyTypeGetFailureCount: int
    policyTypePostSuccessCount: int
    policyTypePostFailureCount: int


# --- request bodies, as documented -----------------------------------------------------------------
# Hand-written JSON Schemas (spec 4.4; issue 17): they describe requests the service accepts, so a
# client generated from them sends valid ones. They are narrower than what the service takes in
# two ways, said in their descriptions: map keys are plain names (``name:version`` is accepted
# too), and a property's ``type`` is a predefined type (a stored data type's name is accepted too).

NAME_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": JSON_NAME_PATTERN,
    "minLength": 1,
    "maxLength": 120,
}
VERSION_SCHEMA: dict[str, Any] = {"type": "string", "pattern": JSON_VERSION_PATTERN, "maxLength": 20}
ENTITY_VERSION_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": JSON_ENTITY_VERSION_PATTERN,
    "maxLength": 20,
    "description": "A semantic version other than the null version 0.0.0",
}
TEXT_SCHEMA: dict[str, Any] = {"type": "string", "pattern": r"^[^\x00]*$", "description": "Text without NUL"}
_SCALAR: dict[str, Any] = {"anyOf": [TEXT_SCHEMA, {"type": ["number", "boolean"]}]}
_TEXT_MAP: dict[str, Any] = {
    "type": "object",
    "propertyNames": TEXT_SCHEMA,
    "additionalProperties": TEXT_SCHEMA,
}
_CONSTRAINT: dict[str, Any] = {
    "type": "object",
    "minProperties": 1,
    "maxProperties": 1,
    "properties": {
        **{
            name: _SCALAR
            for name in ("equal", "greater_than", "greater_or_equal", "less_than", "less_or_equal")
        },
        "valid_values": {"type": "array", "items": _SCALAR},
        "in_range": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
        **{name: {"type": "integer", "minimum": 0} for name in ("length", "min_length", "max_length")},
    },
    "additionalProperties": False,
}
_SCHEMA_TYPE: dict[str, Any] = {
    "enum": sorted(PREDEFINED_DATA_TYPES - {"null"}),
    "description": "A predefined type, or (not listed here) the name of a data type in the template or store",
}
_ENTRY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"enum": ["string", "integer", "float", "boolean"]},
        "description": TEXT_SCHEMA,
    },
    "additionalProperties": False,
}
PROPERTY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": _SCHEMA_TYPE,
        "description": TEXT_SCHEMA,
        "required": {"type": "boolean"},
        "status": {"enum": ["supported", "unsupported", "experimental", "deprecated"]},
        "constraints": {"type": "array", "items": _CONSTRAINT},
        "entry_schema": _ENTRY_SCHEMA,
        "metadata": _TEXT_MAP,
    },
    "additionalProperties": False,
}


def concept_map(entity: dict[str, Any]) -> dict[str, Any]:
    """A service-template map of entities: at least one, keyed by name."""
    return {
        "type": "object",
        "minProperties": 1,
        "propertyNames": NAME_SCHEMA,
        "additionalProperties": entity,
    }


def _type_schema(root: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["version"],
        "properties": {
            "version": ENTITY_VERSION_SCHEMA,
            "derived_from": {
                "enum": [root],
                "description": f"{root}, or (not listed here) a type in the template or store",
            },
            "description": TEXT_SCHEMA,
            "metadata": _TEXT_MAP,
            "properties": {
                "type": "object",
                "propertyNames": NAME_SCHEMA,
                "additionalProperties": PROPERTY_SCHEMA,
            },
            **extra,
        },
        "additionalProperties": False,
    }


POLICY_TYPE_SCHEMA = _type_schema(
    "tosca.policies.Root",
    targets={"type": "array", "items": NAME_SCHEMA},
    triggers={"type": "object", "propertyNames": NAME_SCHEMA, "additionalProperties": _TEXT_MAP},
)
DATA_TYPE_SCHEMA = _type_schema("tosca.datatypes.Root")
_DEFINITIONS_VERSION: dict[str, Any] = {"enum": ["tosca_simple_yaml_1_1_0"]}

POLICY_TYPES_REQUEST: dict[str, Any] = {
    "title": "Policy types request",
    "type": "object",
    "required": ["policy_types"],
    "properties": {
        "tosca_definitions_version": _DEFINITIONS_VERSION,
        "policy_types": concept_map(POLICY_TYPE_SCHEMA),
        "data_types": concept_map(DATA_TYPE_SCHEMA),
    },
    "additionalProperties": False,
}
_POLICY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "type_version", "version"],
    "properties": {
        "type": NAME_SCHEMA,
        "type_version": VERSION_SCHEMA,
        "version": ENTITY_VERSION_SCHEMA,
        "description": TEXT_SCHEMA,
        "metadata": _TEXT_MAP,
        "properties": {"type": "object", "description": "Values that fit the policy type (else 406)"},
    },
    "additionalProperties": False,
}
POLICIES_REQUEST: dict[str, Any] = {
    "title": "Policies request",
    "type": "object",
    "required": ["topology_template"],
    "properties": {
        "tosca_definitions_version": _DEFINITIONS_VERSION,
        "topology_template": {
            "type": "object",
            "required": ["policies"],
            "properties": {
                "description": TEXT_SCHEMA,
                "policies": {
                    "type": "array",
                    "minItems": 1,
                    "items": {**concept_map(_POLICY_SCHEMA), "maxProperties": 1},
                },
            },
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}
_NODE_TEMPLATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "type_version"],
    "properties": {
        "type": NAME_SCHEMA,
        "type_version": VERSION_SCHEMA,
        "version": VERSION_SCHEMA,
        "description": TEXT_SCHEMA,
        "metadata": _TEXT_MAP,
        "properties": {"type": "object"},
    },
    "additionalProperties": False,
}
NODE_TEMPLATES_REQUEST: dict[str, Any] = {
    "title": "Node templates request",
    "type": "object",
    "required": ["topology_template"],
    "properties": {
        "tosca_definitions_version": _DEFINITIONS_VERSION,
        "node_types": concept_map(_type_schema("tosca.nodetypes.Root")),
        "topology_template": {
            "type": "object",
            "required": ["node_templates"],
            "properties": {"node_templates": concept_map(_NODE_TEMPLATE_SCHEMA)},
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}
