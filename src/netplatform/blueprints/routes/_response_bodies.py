"""Response bodies: stored records as the reference writes them on the wire."""

from __future__ import annotations

from math import ceil
from typing import Any

from ...clock import wire_time
from ..repository.blueprint_models import ModelRecord
from ..repository.config_snapshots import ConfigRecord
from ..repository.dictionaries import DictionaryRecord
from ..repository.model_types import ModelTypeRecord
from ..repository.resolution_keys import ResolutionKey
from ..repository.resolved_resources import ResourceRecord
from ..repository.resolved_templates import TemplateRecord


def blueprint_model(record: ModelRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "artifactUUId": None,
        "artifactType": record.artifact_type,
        "artifactVersion": record.artifact_version,
        "artifactDescription": record.artifact_description,
        "internalVersion": None,
        "createdDate": wire_time(record.created_date),
        "artifactName": record.artifact_name,
        "published": record.published,
        "updatedBy": record.updated_by,
        "tags": record.tags,
    }


def wrapped_model(record: ModelRecord) -> dict[str, Any]:
    return {"blueprintModel": blueprint_model(record)}


def wrapped_models(records: list[ModelRecord]) -> list[dict[str, Any]]:
    return [wrapped_model(record) for record in records]


def page(records: list[ModelRecord], total: int, limit: int, number: int) -> dict[str, Any]:
    """A Spring Data page: ``offset`` in ``pageable`` counts items, ``number`` counts pages."""
    total_pages = ceil(total / limit)
    sort = {"empty": False, "sorted": True, "unsorted": False}
    return {
        "content": [blueprint_model(record) for record in records],
        "pageable": {
            "sort": sort,
            "offset": number * limit,
            "pageNumber": number,
            "pageSize": limit,
            "paged": True,
            "unpaged": False,
        },
        "last": number >= total_pages - 1,
        "totalPages": total_pages,
        "totalElements": total,
        "size": limit,
        "number": number,
        "sort": sort,
        "first": number == 0,
        "numberOfElements": len(records),
        "empty": not records,
    }


def model_type(record: ModelTypeRecord) -> dict[str, Any]:
    return {
        "modelName": record.name,
        "derivedFrom": record.derived_from,
        "definitionType": record.definition_type,
        "definition": record.definition,
        "description": record.description,
        "version": record.version,
        "tags": record.tags,
        "creationDate": wire_time(record.creation_date),
        "updatedBy": record.updated_by,
    }


def dictionary(record: DictionaryRecord) -> dict[str, Any]:
    return {
        "name": record.name,
        "dataType": record.data_type,
        "entrySchema": record.entry_schema,
        "resourceDictionaryGroup": record.group,
        "definition": record.definition,
        "description": record.description,
        "tags": record.tags,
        "creationDate": wire_time(record.creation_date),
        "updatedBy": record.updated_by,
    }


def config(record: ConfigRecord) -> dict[str, Any]:
    return {
        "resourceType": record.resource_type,
        "resourceId": record.resource_id,
        "status": record.status,
        "config_snapshot": record.config_snapshot,
        "id": record.id,
        "createdDate": wire_time(record.created_date),
    }


def _key(key: ResolutionKey) -> dict[str, Any]:
    return {
        "blueprintName": key.blueprint_name,
        "blueprintVersion": key.blueprint_version,
        "artifactName": key.artifact_name,
    }


def template(record: TemplateRecord) -> dict[str, Any]:
    return {
        **_key(record.key),
        "result": record.result,
        "resolutionKey": record.key.resolution_key,
        "resourceType": record.key.resource_type,
        "resourceId": record.key.resource_id,
        "occurrence": record.key.occurrence,
        "id": record.id,
        "createdDate": wire_time(record.created_date),
    }


def resource(record: ResourceRecord) -> dict[str, Any]:
    return {
        **_key(record.key),
        "name": record.name,
        "value": record.value,
        "status": record.status,
        "resolutionKey": record.key.resolution_key,
        "resourceType": record.key.resource_type,
        "resourceId": record.key.resource_id,
        "occurrence": record.key.occurrence,
        "dictionaryName": record.dictionary_name,
        "dictionarySource": record.dictionary_source,
        "dictionaryVersion": record.dictionary_version,
        "id": record.id,
        "createdDate": wire_time(record.created_date),
    }
