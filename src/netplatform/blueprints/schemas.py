"""Wire models of the catalog, with the reference's exact field names (camelCase as it spells them).

Responses are rendered from plain dicts (nulls exactly where the reference has them, compact
JSON); these models document them in the OpenAPI document and validate request bodies, where
unknown keys are ignored.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, StrictBool, TypeAdapter, field_validator

from ..web.text import NO_NUL_PATTERN, StorableStr
from .catalog.tosca import TYPE_MODELS, PropertyDefinition, ResourceDefinition
from .names import MAX_NAME_LENGTH, MAX_TAGS_LENGTH, NAME_DESCRIPTION, NAME_PATTERN

NAME_SCHEMA: dict[str, Any] = {
    "type": "string",
    "maxLength": MAX_NAME_LENGTH,
    "pattern": NAME_PATTERN,
    "description": NAME_DESCRIPTION,
}
"""A name the handlers check with checked_name (documented here; their 400 names the field)."""
STORED_TEXT: dict[str, Any] = {"type": "string", "pattern": NO_NUL_PATTERN}
TAGS_SCHEMA: dict[str, Any] = {"type": "string", "maxLength": MAX_TAGS_LENGTH, "pattern": NO_NUL_PATTERN}


class BlueprintModel(BaseModel):
    id: str
    artifactUUId: None = None
    artifactType: str
    artifactVersion: str
    artifactDescription: str
    internalVersion: None = None
    createdDate: str
    artifactName: str
    published: str
    updatedBy: str
    tags: str


class BlueprintModelEnvelope(BaseModel):
    blueprintModel: BlueprintModel


class SortState(BaseModel):
    empty: bool
    sorted: bool
    unsorted: bool


class Pageable(BaseModel):
    sort: SortState
    offset: int
    pageNumber: int
    pageSize: int
    paged: bool
    unpaged: bool


class BlueprintModelPage(BaseModel):
    content: list[BlueprintModel]
    pageable: Pageable
    last: bool
    totalPages: int
    totalElements: int
    size: int
    number: int
    sort: SortState
    first: bool
    numberOfElements: int
    empty: bool


class BootstrapRequest(BaseModel):
    loadModelType: StrictBool = False
    loadResourceDictionary: StrictBool = False
    loadCBA: StrictBool = False


class WorkflowSpecRequest(BaseModel):
    blueprintName: StorableStr
    version: StorableStr = "1.0.0"
    workflowName: StorableStr
    returnContent: str = "json"
    specType: str = "TOSCA"


class WorkflowData(BaseModel):
    workFlowName: str
    inputs: dict[str, Any] | None = None
    outputs: dict[str, Any] | None = None


class WorkflowSpec(BaseModel):
    blueprintName: str
    version: str
    workFlowData: WorkflowData
    dataTypes: dict[str, Any] | None = None


class WorkflowList(BaseModel):
    blueprintName: str
    version: str
    workflows: list[str]


class ModelTypeIn(BaseModel):
    """What ``POST /model-type`` reads; the document states more (:func:`model_type_body`)."""

    modelName: StorableStr
    derivedFrom: StorableStr
    definitionType: str
    definition: dict[str, Any]  # kept as JSON, where a NUL is an escape like any other
    description: StorableStr
    version: StorableStr
    tags: StorableStr | None = None
    updatedBy: StorableStr


class ModelType(BaseModel):
    modelName: str
    derivedFrom: str
    definitionType: str
    definition: dict[str, Any]
    description: str
    version: str
    tags: str | None
    creationDate: str
    updatedBy: str


class ResourceDictionaryIn(BaseModel):
    name: StorableStr | None = None
    dataType: StorableStr | None = None
    entrySchema: StorableStr | None = None
    resourceDictionaryGroup: StorableStr | None = None
    definition: ResourceDefinition | None = None
    description: StorableStr | None = None
    tags: StorableStr | None = None
    updatedBy: StorableStr | None = None


class ResourceDictionary(BaseModel):
    name: str
    dataType: str
    entrySchema: str | None
    resourceDictionaryGroup: str
    definition: dict[str, Any]
    description: str
    tags: str
    creationDate: str
    updatedBy: str


class SourceMapping(BaseModel):
    resourceSourceMappings: dict[str, str]


class ConfigSnapshot(BaseModel):
    resourceType: str
    resourceId: str
    status: str
    config_snapshot: str
    id: str
    createdDate: str


class TemplateResolution(BaseModel):
    blueprintName: str
    blueprintVersion: str
    artifactName: str
    result: str
    resolutionKey: str
    resourceType: str
    resourceId: str
    occurrence: int
    id: str
    createdDate: str


class ResolvedResource(BaseModel):
    blueprintName: str
    blueprintVersion: str
    artifactName: str
    name: str
    value: str
    status: str
    resolutionKey: str
    resourceType: str
    resourceId: str
    occurrence: int
    dictionaryName: str | None
    dictionarySource: str | None
    dictionaryVersion: int | None
    id: str
    createdDate: str


def _name(**extra: Any) -> dict[str, Any]:
    """``json_schema_extra`` of a name field: the pattern a handler checks, documented."""
    return {"pattern": NAME_PATTERN, **extra}


def _key_or_resource(schema: dict[str, Any]) -> None:
    """A value belongs to a resolution key or to a resource (type and id), never both."""
    properties = schema["properties"]
    name = {k: v for k, v in NAME_SCHEMA.items() if k != "description"}
    blank = {"type": "string", "const": ""}
    schema["oneOf"] = [
        {
            "required": ["resolutionKey"],
            "properties": {"resolutionKey": name, "resourceType": blank, "resourceId": blank},
        },
        {
            "required": ["resourceType", "resourceId"],
            "properties": {"resolutionKey": blank, "resourceType": name, "resourceId": name},
        },
    ]
    for field in ("resolutionKey", "resourceType", "resourceId"):
        properties[field]["description"] = "A name, or empty: a resolution key or a resource, not both"


class ResolvedResourceIn(BaseModel, json_schema_extra=_key_or_resource):
    """One resolved value to store (what resolution stores in the reference)."""

    blueprintName: str = Field(min_length=1, max_length=255, json_schema_extra=_name())
    blueprintVersion: str = Field(min_length=1, max_length=255, json_schema_extra=_name())
    artifactName: str = Field(min_length=1, max_length=255, json_schema_extra=_name())
    name: StorableStr = Field(min_length=1, max_length=255)
    value: Any = Field(
        None,
        description="Stored as it is when text (no NUL character), else as JSON",
        json_schema_extra={
            "anyOf": [{"not": {"type": "string"}}, {"type": "string", "pattern": NO_NUL_PATTERN}]
        },
    )
    status: str = Field("success", pattern="^(success|failure)$")
    resolutionKey: str = Field("", max_length=255)
    resourceType: str = Field("", max_length=255)
    resourceId: str = Field("", max_length=255)
    occurrence: int = Field(1, ge=1, le=1_000_000)
    dictionaryName: StorableStr | None = Field(None, max_length=255)
    dictionarySource: StorableStr | None = Field(None, max_length=255)
    dictionaryVersion: int | None = Field(None, ge=0, le=2_147_483_647)

    @field_validator("value")
    @classmethod
    def _storable_value(cls, value: Any) -> Any:
        # A text value is stored as it is (other values as JSON, where a NUL is an escape).
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("NUL characters are not allowed")
        return value


class DeletedEntries(BaseModel):
    deletedEntries: int


class MediaTypeCondition(BaseModel):
    mediaType: str
    negated: bool


class HandlerMethod(BaseModel):
    className: str
    name: str
    descriptor: str


class RequestMappingConditions(BaseModel):
    consumes: list[MediaTypeCondition]
    headers: list[Any]
    methods: list[str]
    params: list[Any]
    patterns: list[str]
    produces: list[MediaTypeCondition]


class MappingDetails(BaseModel):
    handlerMethod: HandlerMethod
    handlerFunction: None = None
    requestMappingConditions: RequestMappingConditions


class MappingEntry(BaseModel):
    predicate: str
    handler: str
    details: MappingDetails


class DispatcherHandlers(BaseModel):
    webHandler: list[MappingEntry]


class Mappings(BaseModel):
    dispatcherHandlers: DispatcherHandlers


class ApplicationContext(BaseModel):
    mappings: Mappings
    parentId: str | None = None


class Contexts(BaseModel):
    application: ApplicationContext


class EndpointListing(BaseModel):
    contexts: Contexts


# --- request bodies as the handlers check them (stated in the OpenAPI document) --------------


def inline_schema(shape: type[BaseModel], *, closed: bool) -> dict[str, Any]:
    """The JSON schema of ``shape`` with nested models written in place.

    ``closed``: objects with named members take no other keys, as strict_parse reads a TOSCA
    definition (an unknown key is a 400); free-form maps stay open.
    """
    schema = TypeAdapter(shape).json_schema(by_alias=True)
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(item) for item in node]
        if not isinstance(node, dict):
            return node
        reference = node.get("$ref")
        if isinstance(reference, str):
            siblings = {key: resolve(value) for key, value in node.items() if key != "$ref"}
            return {**resolve(definitions[reference.rsplit("/", 1)[1]]), **siblings}
        resolved = {key: resolve(value) for key, value in node.items()}
        if closed and "properties" in resolved:
            resolved.setdefault("additionalProperties", False)
        return resolved

    resolved: dict[str, Any] = resolve(schema)
    return resolved


def _text(*, not_blank: bool = False, max_length: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "pattern": NO_NUL_PATTERN}
    if not_blank:
        schema["pattern"] = "^[^\\u0000]*\\S[^\\u0000]*$"
    if max_length is not None:
        schema["maxLength"] = max_length
    return schema


def model_type_body() -> dict[str, Any]:
    """``POST /model-type``: the definition is read strictly as its definitionType's TOSCA kind."""
    return {
        "type": "object",
        "required": [
            "modelName",
            "derivedFrom",
            "definitionType",
            "definition",
            "description",
            "version",
            "updatedBy",
        ],
        "properties": {
            "modelName": NAME_SCHEMA,
            "derivedFrom": NAME_SCHEMA,
            "definitionType": {"type": "string", "enum": list(TYPE_MODELS)},
            "definition": {"type": "object"},
            "description": _text(),
            "version": NAME_SCHEMA,
            "tags": {"anyOf": [TAGS_SCHEMA, {"type": "null"}]},
            "updatedBy": NAME_SCHEMA,
        },
        "oneOf": [
            {
                "properties": {
                    "definitionType": {"const": kind},
                    "definition": inline_schema(shape, closed=True),
                }
            }
            for kind, shape in TYPE_MODELS.items()
        ],
    }


def _described_property() -> dict[str, Any]:
    """A dictionary's property: its type and description are required and not empty."""
    schema = inline_schema(PropertyDefinition, closed=False)
    schema["required"] = sorted({*schema.get("required", []), "type", "description"})
    schema["properties"]["type"] = {**_text(not_blank=True, max_length=MAX_NAME_LENGTH)}
    schema["properties"]["description"] = _text(not_blank=True)
    for entry_schema in schema["properties"]["entry_schema"].get("anyOf", []):
        if "properties" in entry_schema:
            entry_schema["properties"]["type"] = _text()
    return schema


def dictionary_definition_body(*, in_envelope: bool) -> dict[str, Any]:
    """A resource definition as a dictionary is saved from it.

    ``in_envelope`` (``POST /dictionary``): the envelope gives the name and author, and the
    definition its tags; else (``POST /dictionary/definition``) the definition names itself and
    its author, and blank tags are made up from both.
    """
    schema = inline_schema(ResourceDefinition, closed=False)
    properties = schema["properties"]
    properties["property"] = _described_property()
    properties["group"] = NAME_SCHEMA
    if in_envelope:
        properties["tags"] = {**_text(not_blank=True, max_length=MAX_TAGS_LENGTH)}
        schema["required"] = ["property", "tags"]
    else:
        properties["name"] = NAME_SCHEMA
        properties["updated-by"] = _text(not_blank=True, max_length=MAX_NAME_LENGTH)
        properties["tags"] = {"anyOf": [TAGS_SCHEMA, {"type": "null"}]}
        schema["required"] = ["name", "property", "updated-by"]
    return schema


def dictionary_body() -> dict[str, Any]:
    """``POST /dictionary``: the envelope's name and updatedBy, and the definition it is built from."""
    schema = inline_schema(ResourceDictionaryIn, closed=False)
    properties = schema["properties"]
    properties["name"] = NAME_SCHEMA
    properties["updatedBy"] = _text(not_blank=True, max_length=MAX_NAME_LENGTH)
    properties["definition"] = dictionary_definition_body(in_envelope=True)
    schema["required"] = ["name", "updatedBy", "definition"]
    return schema


def json_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


# --- the device inventory (/api/v1/devices) --------------------------------------------------


class DeviceSettings(BaseModel):
    """What a device is: where it answers NETCONF and how the platform logs in. ``password`` and
    ``privateKey`` are write-only (sealed at rest, never answered); on an update, an absent one
    keeps the stored secret."""

    host: StorableStr = Field(min_length=1, max_length=MAX_NAME_LENGTH)
    port: int = Field(830, ge=1, le=65535)
    username: StorableStr = Field(min_length=1, max_length=MAX_NAME_LENGTH)
    password: StorableStr | None = Field(None, max_length=1024)
    privateKey: StorableStr | None = Field(None, max_length=16384)
    hostKey: StorableStr | None = Field(
        None,
        max_length=16384,
        description="The device's SSH host key in OpenSSH form ('ssh-ed25519 AAAA...'), pinned",
    )
    connectTimeout: float = Field(30.0, gt=0, le=600, description="seconds: TCP, SSH, login and hello")
    replyTimeout: float = Field(30.0, gt=0, le=3600, description="seconds, per NETCONF reply")
    site: StorableStr | None = Field(None, max_length=MAX_NAME_LENGTH)


class DeviceCreate(DeviceSettings):
    name: str = Field(json_schema_extra=NAME_SCHEMA)


class Device(BaseModel):
    """A device as answered: never its password or private key."""

    name: str
    host: str
    port: int
    username: str
    authentication: str = Field(description="password or private-key")
    hostKey: str | None
    hostKeyFingerprint: str | None
    connectTimeout: float
    replyTimeout: float
    site: str | None
    createdDate: str
    updatedDate: str


class TrustHostKey(BaseModel):
    fingerprint: StorableStr = Field(
        min_length=1,
        max_length=128,
        description="SHA256:... of the key the device presents (its check shows it)",
    )


class DeviceCheck(BaseModel):
    device: str
    ok: bool
    hostKeyStatus: str = Field(
        description="trusted, changed (differs from the pinned key), unknown (none pinned)"
    )
    presentedHostKey: str | None
    presentedFingerprint: str | None
    capabilities: list[str]
    errorMessage: str | None
    elapsedMs: int


class DeviceDeploy(BaseModel):
    id: int
    device: str
    mode: str
    status: str
    requestId: str
    subRequestId: str
    blueprintName: str
    blueprintVersion: str
    datastore: str | None
    sent: str | None
    diff: str | None
    errorMessage: str | None
    durationMs: int
    startDate: str
