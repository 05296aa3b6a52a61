"""Resolved (meshed) templates: the result of resolving a template, stored per resolution key.

The blueprint is not checked to exist: a resolution may be stored before its blueprint is.
"""

from __future__ import annotations

import uuid

from ..clock import utc_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .errors import resource_not_found
from .formats import FormattedText, media_type_of, rendered
from .repository.resolution_keys import ResolutionKey
from .repository.resolved_templates import ResolvedTemplateRepository, TemplateRecord


class ResolvedTemplates:
    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, ResolvedTemplateRepository)

    def store(self, key: ResolutionKey, result: str) -> TemplateRecord:
        """Store (replace) the result of ``key``, with a new id."""
        record = TemplateRecord(key=key, result=result, id=str(uuid.uuid4()), created_date=utc_now())
        self.unit.write(lambda templates: templates.replace(record))
        return record

    def find(self, key: ResolutionKey) -> str | None:
        """The stored result of ``key``, None when there is none."""
        record = self.unit.read(lambda templates: templates.find(key))
        return None if record is None else record.result

    def in_format(self, key: ResolutionKey, format_: str) -> FormattedText:
        """The result of ``key`` in the format asked for, converted between JSON and XML (406
        when it cannot be), 404 when there is none."""
        media_type = media_type_of(format_)
        record = self._found(key)
        return FormattedText(rendered(record.result, media_type, _what(key)), media_type)

    def as_stored(self, key: ResolutionKey, format_: str) -> FormattedText:
        """The result of ``key`` as it was stored, in the media type ``format_`` names (the
        reference's query form: the text itself, whatever it holds), 404 when there is none."""
        media_type = media_type_of(format_)
        return FormattedText(self._found(key).result, media_type)

    def _found(self, key: ResolutionKey) -> TemplateRecord:
        record = self.unit.read(lambda templates: templates.find(key))
        if record is None:
            raise resource_not_found(f"No {_what(key)} stored for this key")
        return record


def _what(key: ResolutionKey) -> str:
    return f"resolved template ({key.blueprint_name}, {key.blueprint_version}, {key.artifact_name})"
