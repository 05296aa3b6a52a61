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
from ..store.retry import write_with_retry
from ..web.errors import Conflict
from .errors import DUPLICATE_DATA, resource_not_found
from .repository import resolved_resources as stored
from .repository.resolved_resources import ResourceQuery, ResourceRecord
from .resolutions import template_key, values_query
from .schemas import ResolvedResourceIn


class ResolvedResources:
    def __init__(self, db: Database) -> None:
        self.db = db

    def store(self, values: Sequence[ResolvedResourceIn]) -> list[ResourceRecord]:
        """Store every value in one transaction; the records as stored."""
        now = utc_now()
        records = [_record(value, now) for value in values]
        write_with_retry(self.db, lambda session: stored.store_resources(session, records))
        return records

    def matching(self, query: ResourceQuery) -> list[ResourceRecord]:
        with self.db.read() as session:
            return stored.find_resources(session, query)

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
        with self.db.write() as session:
            return stored.delete_resources(session, query)


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
