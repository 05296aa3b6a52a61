"""What resolution reads from and writes to the catalog's resolved template and resource stores
(the rows ``GET /api/v1/template`` and ``GET /api/v1/resources`` read). Each method is one
transaction; ``saving`` gives the store as work for a transaction that also writes a sync run's
audit record."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from ...store.db import Database
from ...store.retry import write_with_retry
from ..repository import resolved_resources as resources
from ..repository import resolved_templates as templates
from ..repository.resolution_keys import ResolutionKey
from ..repository.resolved_resources import ResourceQuery, ResourceRecord
from ..repository.resolved_templates import TemplateRecord


@dataclass(frozen=True)
class Deleted:
    templates: int
    resources: int


def saving(
    cleared: Sequence[ResolutionKey], kept: Sequence[TemplateRecord], values: Sequence[ResourceRecord]
) -> Callable[[Session], None]:
    """The work that replaces what ``cleared`` held (every occurrence listed) by the new
    templates and values, for a transaction of the caller's (it may be run again, whole)."""

    def work(session: Session) -> None:
        for key in cleared:
            templates.delete_templates(session, key, [key.occurrence])
            resources.delete_resources_of_key(session, key, [key.occurrence])
        for record in kept:
            templates.replace_template(session, record)
        resources.store_resources(session, values)

    return work


class ResolutionResults:
    def __init__(self, db: Database) -> None:
        self.db = db

    def stored(self, keys: Sequence[ResolutionKey]) -> dict[ResolutionKey, list[ResourceRecord]]:
        """The values stored under each key (and its occurrence)."""
        with self.db.read() as session:
            return {key: resources.resources_of_key(session, key) for key in keys}

    def save(
        self,
        cleared: Sequence[ResolutionKey],
        kept: Sequence[TemplateRecord],
        values: Sequence[ResourceRecord],
    ) -> None:
        """Replace what ``cleared`` held (every occurrence listed) by the new templates and values."""
        self.run(saving(cleared, kept, values))

    def run(self, work: Callable[[Session], None]) -> None:
        """``work`` in a transaction of its own (run again if it lost a race)."""
        write_with_retry(self.db, work)

    def occurrences(self, key: ResolutionKey) -> list[int]:
        with self.db.read() as session:
            return templates.occurrences_of(session, key)

    def value(self, query: ResourceQuery, occurrence: int) -> ResourceRecord | None:
        """The stored successful value ``query`` names at ``occurrence`` (processor-db)."""
        with self.db.read() as session:
            found = resources.find_resources(session, query)
        matching = [r for r in found if r.key.occurrence == occurrence and r.status == "success"]
        return matching[-1] if matching else None

    def delete(self, key: ResolutionKey, last_n: int | None) -> Deleted:
        """Delete the templates and values of ``key``: every occurrence, or the ``last_n`` highest."""

        def work(session: Session) -> Deleted:
            chosen: list[int] | None = None
            if last_n is not None:
                chosen = templates.occurrences_of(session, key)[:last_n]
            return Deleted(
                templates.delete_templates(session, key, chosen),
                resources.delete_resources_of_key(session, key, chosen),
            )

        return write_with_retry(self.db, work)
