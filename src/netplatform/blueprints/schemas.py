"""Wire models of the catalog, with the reference's exact field names (camelCase as it spells them).

Responses are rendered from plain dicts (nulls exactly where the reference has them, compact
JSON); these models document them in the OpenAPI document and validate request bodies, where
unknown keys are ignored.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, StrictBool

from .tosca import ResourceDefinition


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
    blueprintName: str
    version: str = "1.0.0"
    workflowName: str
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
    modelName: str
    derivedFrom: str
    definitionType: str
    definition: dict[str, Any]
    description: str
    version: str
    tags: str | None = None
    updatedBy: str


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
    name: str | None = None
    dataType: str | None = None
    entrySchema: str | None = None
    resourceDictionaryGroup: str | None = None
    definition: ResourceDefinition | None = None
    description: str | None = None
    tags: str | None = None
    updatedBy: str | None = None


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


class ResolvedResourceIn(BaseModel):
    """One resolved value to store (what resolution stores in the reference)."""

    blueprintName: str = Field(min_length=1, max_length=255)
    blueprintVersion: str = Field(min_length=1, max_length=255)
    artifactName: str = Field(min_length=1, max_length=255)
    name: str = Field(min_length=1, max_length=255)
    value: Any = None
    status: str = Field("success", pattern="^(success|failure)$")
    resolutionKey: str = Field("", max_length=255)
    resourceType: str = Field("", max_length=255)
    resourceId: str = Field("", max_length=255)
    occurrence: int = Field(1, ge=1, le=1_000_000)
    dictionaryName: str | None = Field(None, max_length=255)
    dictionarySource: str | None = Field(None, max_length=255)
    dictionaryVersion: int | None = Field(None, ge=0, le=2_147_483_647)


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
