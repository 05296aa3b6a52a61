"""Model types and dictionaries as enrichment looks them up, within one read session."""

from __future__ import annotations

from sqlalchemy.orm import Session

from .dictionaries import DictionaryRecord, find_dictionary
from .model_types import ModelTypeRecord, find_model_type


class StoredDefinitions:
    """The database standing behind enrichment's definition source (:class:`~..enrich.DefinitionSource`)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def model_type(self, name: str) -> ModelTypeRecord | None:
        return find_model_type(self.session, name)

    def dictionary(self, name: str) -> DictionaryRecord | None:
        return find_dictionary(self.session, name)
