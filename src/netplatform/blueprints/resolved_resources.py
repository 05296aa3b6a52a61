"""Resolved resource values: what resolution found for each assignment of a blueprint artifact.

Each value replaces the one of the same name under the same key and occurrence. The reference
stores them while resolving; here clients store them through ``POST /api/v1/resources``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from datetime import datetime

from ..clock import utc_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import Conflict
from .errors import DUPLICATE_DATA, resource_not_found
from .repository.resolved_resources import ResolvedResourceRepository, ResourceQuery, ResourceRecord
from .resolutions import template_key, values_query
from .schemas import ResolvedResourceIn


class ResolvedResources:
    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, ResolvedResourceRepository)

    def store(self, values: Sequence[ResolvedResourceIn]) -> list[ResourceRecord]:
        """Store every value in one transaction; the records as stored."""
        now = utc_now()
        records = [_record(value, now) for value in values]
        self.unit.write(lambda resources: resources.store(records))
        return records

    def matching(self, query: ResourceQuery) -> list[ResourceRecord]:
        return self.unit.read(lambda resources: resources.find(query))

    def one(self, query: ResourceQuery) -> ResourceRecord:
        """The single value ``query`` names: 404 when there is none, 409 when several occurrences match."""
        found = self.matching(query)
        if not found:
            raise resource_not_found("No records found")
        if len(found) > 1:
            raise Conflict(
                f"Multiple records found for resource ({query.name}) under resolution key "
                f"({query.resolution_key})",
                code=DUPLICATE_DATA,
            )
        return found[0]

    def delete(self, query: ResourceQuery) -> int:
        """Delete every matching value; how many there were."""
        return self.unit.write(lambda resources: resources.delete(query), retry=False)


def _record(value: ResolvedResourceIn, now: datetime) -> ResourceRecord:
    key = template_key(
        value.blueprintName,
        value.blueprintVersion,
        value.artifactName,
        resolution_key=value.resolutionKey,
        resource_type=value.resourceType,
        resource_id=value.resourceId,
        occurrence=value.occurrence,
    )
    values_query(  # the same rule as reading: a resolution key or a resource, exactly one
        key.blueprint_name,
        key.blueprint_version,
        key.artifact_name,
        key.resolution_key,
        key.resource_type,
        key.resource_id,
    )
    return ResourceRecord(
        key=key,
        name=value.name,
        value=value.value if isinstance(value.value, str) else json.dumps(value.value),
        status=value.status,
        dictionary_name=value.dictionaryName,
        dictionary_source=value.dictionarySource,
        dictionary_version=value.dictionaryVersion,
        id=str(uuid.uuid4()),
        created_date=now,
    )
