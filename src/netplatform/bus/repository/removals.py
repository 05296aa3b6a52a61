"""What a router or the authz service did not take when asked to remove, kept until a retry
succeeds: one table each, settled alike."""

from __future__ import annotations

from typing import ClassVar

from sqlalchemy import Table, delete, update
from sqlalchemy.orm import Session


class KeptRemovals:
    table: ClassVar[Table]

    def __init__(self, session: Session) -> None:
        self.session = session

    def settle(self, removal_id: int, reason: str | None) -> None:
        """Drop the removal once done or no longer wanted (``reason`` None), else keep why it
        failed this time."""
        if reason is None:
            self.session.execute(delete(self.table).where(self.table.c.id == removal_id))
        else:
            self.session.execute(
                update(self.table).where(self.table.c.id == removal_id).values(reason=reason)
            )
