"""Resolution results: the resolved templates and values of a resolution key, in one transaction."""

from __future__ import annotations

from sqlalchemy.orm import Session

from .resolved_resources import ResolvedResourceRepository
from .resolved_templates import ResolvedTemplateRepository


class ResolutionResultRepository:
    """The resolved templates and the resolved values, both in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.templates = ResolvedTemplateRepository(session)
        self.resources = ResolvedResourceRepository(session)
