"""Model types and dictionaries as enrichment looks them up, within one read session."""

from __future__ import annotations

from sqlalchemy.orm import Session

from .dictionaries import DictionaryRecord, DictionaryRepository
from .model_types import ModelTypeRecord, ModelTypeRepository


class StoredDefinitions:
    """The database standing behind enrichment's definition source (:class:`~..enrich.DefinitionSource`)."""

    def __init__(self, session: Session) -> None:
        self.model_types = ModelTypeRepository(session)
        self.dictionaries = DictionaryRepository(session)

    def model_type(self, name: str) -> ModelTypeRecord | None:
        return self.model_types.find(name)

    def dictionary(self, name: str) -> DictionaryRecord | None:
        return self.dictionaries.find(name)
