"""Site locations beyond access by name."""

from __future__ import annotations

from sqlalchemy.orm import Session

from .rows import LOCATIONS, list_all


def first_central_location(session: Session) -> str | None:
    """The oldest site location whose layer is central (where a feed's default publisher sits)."""
    for location in list_all(session, LOCATIONS):
        if location.central:
            return location.svcLocationName
    return None
