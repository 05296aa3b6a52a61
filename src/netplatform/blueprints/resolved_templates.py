"""Resolved (meshed) templates: the result of resolving a template, stored per resolution key.

The blueprint is not checked to exist: a resolution may be stored before its blueprint is.
"""

from __future__ import annotations

import uuid

from ..clock import utc_now
from ..store.db import Database
from ..store.retry import write_with_retry
from .errors import resource_not_found
from .formats import FormattedText, media_type_of, rendered
from .repository import resolved_templates as stored
from .repository.resolution_keys import ResolutionKey
from .repository.resolved_templates import TemplateRecord


class ResolvedTemplates:
    def __init__(self, db: Database) -> None:
        self.db = db

    def store(self, key: ResolutionKey, result: str) -> TemplateRecord:
        """Store (replace) the result of ``key``, with a new id."""
        record = TemplateRecord(key=key, result=result, id=str(uuid.uuid4()), created_date=utc_now())
        write_with_retry(self.db, lambda session: stored.replace_template(session, record))
        return record

    def in_format(self, key: ResolutionKey, format_: str) -> FormattedText:
        """The result of ``key`` in the format asked for (404 when there is none)."""
        media_type = media_type_of(format_)
        with self.db.read() as session:
            record = stored.find_template(session, key)
        what = f"resolved template ({key.blueprint_name}, {key.blueprint_version}, {key.artifact_name})"
        if record is None:
            raise resource_not_found(f"No {what} stored for this key")
        return FormattedText(rendered(record.result, media_type, what), media_type)
