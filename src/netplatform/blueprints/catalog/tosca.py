"""TOSCA as a CBA writes it: service templates, types, node templates, resource assignments.

Archive files are parsed strictly (``strict_parse``): an unknown key is a malformed archive,
except inside the free-form maps (``metadata``, ``dsl_definitions``, node-template ``properties``
and ``attributes``, operation ``inputs``/``outputs``, artifact ``properties``), which are typed
``Any``. REST bodies use the same models leniently (unknown keys are ignored). ``dump`` writes
the reference's shape: keys by their TOSCA names, null members left out.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from ...web.errors import BadRequest, describe_validation_errors

PRIMITIVE_TYPES = frozenset({"string", "integer", "float", "double", "boolean", "timestamp", "null"})
COMPLEX_TYPES = frozenset({"json", "map"})
LIST_TYPE = "list"

NODE_ROOT = "tosca.nodes.Root"
DATA_ROOT = "tosca.datatypes.Root"
DYNAMIC_DATA_ROOT = "tosca.datatypes.Dynamic"
ARTIFACT_ROOT = "tosca.artifacts.Root"
ARTIFACT_IMPLEMENTATION = "tosca.artifacts.Implementation"
RELATIONSHIP_ROOT = "tosca.relationships.Root"
MAPPING_ARTIFACT_TYPE = "artifact-mapping-resource"

ROOT_TYPES = frozenset(
    {
        NODE_ROOT,
        DATA_ROOT,
        DYNAMIC_DATA_ROOT,
        ARTIFACT_ROOT,
        RELATIONSHIP_ROOT,
        "tosca.capabilities.Root",
        "tosca.policies.Root",
    }
)
"""Types every chain ends in; never stored, never written into an archive."""


class ToscaModel(BaseModel):
    model_config = ConfigDict(
        extra="ignore", validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )
    _keys: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._keys = frozenset(field.alias or name for name, field in cls.model_fields.items())

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_keys(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict) and info.context and info.context.get("strict"):
            unknown = sorted(str(key) for key in data if key not in cls._keys)
            if unknown:
                raise ValueError(f"unknown key(s) {', '.join(unknown)}")
        return data

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class ConstraintClause(ToscaModel):
    equal: Any = None
    greater_than: Any = None
    greater_or_equal: Any = None
    less_than: Any = None
    less_or_equal: Any = None
    in_range: Any = None
    valid_values: Any = None
    length: Any = None
    min_length: Any = None
    max_length: Any = None
    pattern: Any = None
    schema_: Any = Field(None, alias="schema")


class EntrySchema(ToscaModel):
    type: str
    constraints: list[ConstraintClause] | None = None


class PropertyDefinition(ToscaModel):
    description: str | None = None
    required: bool | None = None
    type: str
    input_param: bool | None = Field(None, alias="input-param")
    default: Any = None
    status: str | None = None
    constraints: list[ConstraintClause] | None = None
    entry_schema: EntrySchema | None = None
    external_schema: str | None = Field(None, alias="external-schema")
    metadata: dict[str, Any] | None = None
    value: Any = None


Properties = dict[str, PropertyDefinition]


class Implementation(ToscaModel):
    primary: str | None = None
    dependencies: list[str] | None = None
    operation_host: str = "SELF"
    timeout: int = 180
    lock: Any = None


class OperationDefinition(ToscaModel):
    description: str | None = None
    implementation: Implementation | None = None
    inputs: Properties | None = None
    outputs: Properties | None = None


class InterfaceDefinition(ToscaModel):
    type: str | None = None
    operations: dict[str, OperationDefinition] | None = None
    inputs: Properties | None = None


class CapabilityDefinition(ToscaModel):
    type: str
    description: str | None = None
    properties: Properties | None = None
    valid_source_types: list[str] | None = None
    occurrences: list[Any] | None = None


class RequirementDefinition(ToscaModel):
    description: str | None = None
    capability: str | None = None
    node: str | None = None
    relationship: str | None = None
    occurrences: list[Any] | None = None


class ArtifactDefinition(ToscaModel):
    type: str
    file: str
    repository: str | None = None
    description: str | None = None
    deploy_path: str | None = Field(None, alias="deploy_Path")
    properties: dict[str, Any] | None = None


class EntityType(ToscaModel):
    description: str | None = None
    version: str = "1.0.0"
    metadata: dict[str, Any] | None = None
    derived_from: str | None = None
    attributes: Properties | None = None
    properties: Properties | None = None


class NodeType(EntityType):
    capabilities: dict[str, CapabilityDefinition] | None = None
    requirements: dict[str, RequirementDefinition] | None = None
    interfaces: dict[str, InterfaceDefinition] | None = None
    artifacts: dict[str, ArtifactDefinition] | None = None


class DataType(EntityType):
    constraints: list[ConstraintClause] | None = None


class ArtifactType(EntityType):
    mime_type: str | None = None
    file_ext: list[str] | None = None


class RelationshipType(EntityType):
    interfaces: dict[str, InterfaceDefinition] | None = None
    valid_target_types: list[str] | None = None


class CapabilityType(EntityType):
    valid_source_types: list[str] | None = None


class PolicyType(EntityType):
    targets: list[str] | None = None


class OperationAssignment(ToscaModel):
    description: str | None = None
    implementation: Implementation | None = None
    inputs: dict[str, Any] | None = None
    outputs: dict[str, Any] | None = None


class InterfaceAssignment(ToscaModel):
    operations: dict[str, OperationAssignment] | None = None
    inputs: dict[str, Any] | None = None


class CapabilityAssignment(ToscaModel):
    properties: dict[str, Any] | None = None
    attributes: dict[str, Any] | None = None


class RequirementAssignment(ToscaModel):
    capability: str | None = None
    node: str | None = None
    relationship: str | None = None


class NodeTemplate(ToscaModel):
    description: str | None = None
    type: str
    metadata: dict[str, Any] | None = None
    directives: list[str] | None = None
    properties: dict[str, Any] | None = None
    attributes: dict[str, Any] | None = None
    capabilities: dict[str, CapabilityAssignment] | None = None
    requirements: dict[str, RequirementAssignment] | None = None
    interfaces: dict[str, InterfaceAssignment] | None = None
    artifacts: dict[str, ArtifactDefinition] | None = None
    node_filter: Any = None
    copy_: str | None = Field(None, alias="copy")


class RelationshipTemplate(ToscaModel):
    type: str
    description: str | None = None
    metadata: dict[str, Any] | None = None
    properties: dict[str, Any] | None = None
    attributes: dict[str, Any] | None = None
    interfaces: dict[str, InterfaceAssignment] | None = None
    copy_: str | None = Field(None, alias="copy")


class Activity(ToscaModel):
    delegate: str | None = None
    set_state: str | None = None
    call_operation: str | None = None
    inlines: str | None = None


class Step(ToscaModel):
    description: str | None = None
    target: str | None = None
    target_relationship: str | None = None
    operation_host: str | None = None
    activities: list[Activity] | None = None
    on_success: list[str] | None = None
    on_failure: list[str] | None = None


class Workflow(ToscaModel):
    description: str | None = None
    steps: dict[str, Step] | None = None
    preconditions: list[Any] | None = None
    inputs: Properties | None = None
    outputs: Properties | None = None


class TopologyTemplate(ToscaModel):
    description: str | None = None
    inputs: Properties | None = None
    node_templates: dict[str, NodeTemplate] | None = None
    relationship_templates: dict[str, RelationshipTemplate] | None = None
    policies: Any = None
    outputs: Properties | None = None
    substitution_mappings: Any = None
    workflows: dict[str, Workflow] | None = None


class ImportDefinition(ToscaModel):
    file: str
    repository: str | None = None
    namespace_uri: str | None = None
    namespace_prefix: str | None = None


class ServiceTemplate(ToscaModel):
    tosca_definitions_version: str = "controller_blueprint_1_0_0"
    metadata: dict[str, Any] | None = None
    description: str | None = None
    dsl_definitions: dict[str, Any] | None = None
    repositories: dict[str, Any] | None = None
    imports: list[ImportDefinition] | None = None
    artifact_types: dict[str, ArtifactType] | None = None
    data_types: dict[str, DataType] | None = None
    relationship_types: dict[str, RelationshipType] | None = None
    node_types: dict[str, NodeType] | None = None
    policy_types: dict[str, PolicyType] | None = None
    topology_template: TopologyTemplate | None = None


class ResourceAssignment(ToscaModel):
    name: str
    property: PropertyDefinition | None = None
    max_occurrence: int | None = Field(None, alias="max-occurrence")
    input_param: bool = Field(False, alias="input-param")
    dictionary_name: str | None = Field(None, alias="dictionary-name")
    dictionary_source: str | None = Field(None, alias="dictionary-source")
    dictionary_source_definition: Any = Field(None, alias="dictionary-source-definition")
    dependencies: list[str] | None = None
    templating_constants: dict[str, Any] | None = Field(None, alias="templating-constants")
    version: int | None = None
    status: str | None = None
    message: str | None = None
    updated_date: str | None = Field(None, alias="updated-date")
    updated_by: str | None = Field(None, alias="updated-by")
    key_identifiers: list[Any] | None = Field(None, alias="keyIdentifiers")


class ResourceDefinition(ToscaModel):
    name: str | None = None
    property: PropertyDefinition | None = None
    tags: str | None = None
    group: str = "default"
    updated_by: str | None = Field(None, alias="updated-by")
    sources: dict[str, NodeTemplate] = Field(default_factory=dict)


TYPE_MODELS: dict[str, type[EntityType]] = {
    "data_type": DataType,
    "artifact_type": ArtifactType,
    "node_type": NodeType,
    "capability_type": CapabilityType,
    "relationship_type": RelationshipType,
}
"""The model-type kinds the catalog stores, and how each definition is read."""

Parsed = TypeVar("Parsed")


def strict_parse(shape: type[Parsed], data: Any, where: str) -> Parsed:
    """Read archive content as ``shape``; an unknown key or a wrong type is a 400 naming ``where``."""
    return _parse(shape, data, where, strict=True)


def lenient_parse(shape: type[Parsed], data: Any, where: str) -> Parsed:
    """Read a REST body as ``shape``; unknown keys are ignored, a wrong type is a 400."""
    return _parse(shape, data, where, strict=False)


def _parse(shape: type[Parsed], data: Any, where: str, *, strict: bool) -> Parsed:
    try:
        return _adapter(shape).validate_python(data, context={"strict": strict})
    except ValidationError as error:
        name = getattr(shape, "__name__", str(shape))
        raise BadRequest(f"{where} is not a valid {name}: {describe_problems(error)}") from error


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(shape: type[Parsed]) -> TypeAdapter[Parsed]:
    """One adapter per shape, built on first use (building one compiles the model's validator)."""
    adapter = _ADAPTERS.get(shape)
    if adapter is None:
        adapter = _ADAPTERS.setdefault(shape, TypeAdapter(shape))
    return adapter


def describe_problems(error: ValidationError) -> str:
    return describe_validation_errors(error.errors(include_url=False))


def is_simple_type(type_name: str) -> bool:
    return type_name in PRIMITIVE_TYPES or type_name in COMPLEX_TYPES


def is_simple_property(prop: PropertyDefinition) -> bool:
    """Primitive, complex, or a list of primitives: nothing to fetch for it."""
    if prop.type == LIST_TYPE:
        return prop.entry_schema is not None and prop.entry_schema.type in PRIMITIVE_TYPES
    return is_simple_type(prop.type)
