"""What resolution reads from and writes to the catalog's resolved template and resource stores
(the rows ``GET /api/v1/template`` and ``GET /api/v1/resources`` read). Each method is one
transaction; ``saving`` gives the store as work for a transaction that also writes a sync run's
audit record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from ...store.db import Database
from ...store.unit_of_work import UnitOfWork
from ..repository.resolution_keys import ResolutionKey
from ..repository.resolution_results import ResolutionResultRepository
from ..repository.resolved_resources import ResourceQuery, ResourceRecord
from ..repository.resolved_templates import TemplateRecord
from .engine import Write


@dataclass(frozen=True)
class Deleted:
    templates: int
    resources: int


def saving(
    cleared: Sequence[ResolutionKey], kept: Sequence[TemplateRecord], values: Sequence[ResourceRecord]
) -> Write:
    """The work that replaces what ``cleared`` held (every occurrence listed) by the new
    templates and values, for a transaction of the caller's (it may be run again, whole)."""

    def work(session: Session) -> None:
        results = ResolutionResultRepository(session)
        for key in cleared:
            results.templates.delete(key, [key.occurrence])
            results.resources.delete_of_key(key, [key.occurrence])
        for record in kept:
            results.templates.replace(record)
        results.resources.store(values)

    return work


class ResolutionResults:
    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, ResolutionResultRepository)

    def stored(self, key: ResolutionKey) -> list[ResourceRecord]:
        """The values stored under the key (and its occurrence): one statement, so no
        transaction around it."""
        return self.unit.read_one(lambda results: results.resources.of_key(key))

    def save(
        self,
        cleared: Sequence[ResolutionKey],
        kept: Sequence[TemplateRecord],
        values: Sequence[ResourceRecord],
    ) -> None:
        """Replace what ``cleared`` held (every occurrence listed) by the new templates and values."""
        self.run(saving(cleared, kept, values))

    def run(self, work: Write) -> None:
        """``work`` in a transaction of its own (run again if it lost a race)."""
        self.unit.write(lambda results: work(results.session))

    def occurrences(self, key: ResolutionKey) -> list[int]:
        return self.unit.read(lambda results: results.templates.occurrences(key))

    def value(self, query: ResourceQuery, occurrence: int) -> ResourceRecord | None:
        """The stored successful value ``query`` names at ``occurrence`` (processor-db)."""
        found = self.unit.read(lambda results: results.resources.find(query))
        matching = [r for r in found if r.key.occurrence == occurrence and r.status == "success"]
        return matching[-1] if matching else None

    def delete(self, key: ResolutionKey, last_n: int | None) -> Deleted:
        """Delete the templates and values of ``key``: every occurrence, or the ``last_n`` highest."""

        def work(results: ResolutionResultRepository) -> Deleted:
            chosen: list[int] | None = None
            if last_n is not None:
                chosen = results.templates.occurrences(key)[:last_n]
            return Deleted(
                results.templates.delete(key, chosen), results.resources.delete_of_key(key, chosen)
            )

        return self.unit.write(work)
