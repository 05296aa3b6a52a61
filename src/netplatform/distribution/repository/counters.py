"""The counters feed and subscription ids come from."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Session

from ..tables import counters

FEED_COUNTER = "feed"
SUBSCRIPTION_COUNTER = "subscription"


class CounterRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def next_id(self, counter: str) -> int:
        """The next id of a counter; its row stays locked until commit, so creates are serialised.

        Ids are ``max(every id ever given) + 1`` and never reused, deleted objects included.
        """
        current = self.session.execute(
            sa.select(counters.c.value).where(counters.c.name == counter).with_for_update()
        ).scalar_one()
        self.session.execute(sa.update(counters).where(counters.c.name == counter).values(value=current + 1))
        return int(current) + 1
