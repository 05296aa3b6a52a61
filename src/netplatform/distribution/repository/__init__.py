"""Every query of the file-distribution service; nothing else in the package speaks SQL.

One repository class per concept, each over the caller's session: :mod:`.counters` (where feed
and subscription ids come from), :mod:`.feeds`, :mod:`.subscriptions`, :mod:`.queue` (spooled
files, deliveries, per-subscription and node claims), :mod:`.logs` (log records), :mod:`.nodes`
(the nodes and their heartbeats) and :mod:`.routing` (ingress and egress routes). None opens a
transaction: a service object runs its transactions through a
:class:`~netplatform.store.unit_of_work.UnitOfWork` over one of them, or over
:class:`Repositories` when one transaction spans several (a publish: feed, subscriptions, queue
and log).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from .counters import CounterRepository
from .feeds import FeedRepository
from .logs import LogRepository
from .nodes import NodeRepository
from .queue import QueueRepository
from .routing import RouteRepository
from .subscriptions import SubscriptionRepository


class Repositories:
    """Every repository of the service over one session, so one transaction can span several."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.counters = CounterRepository(session)
        self.feeds = FeedRepository(session)
        self.subscriptions = SubscriptionRepository(session)
        self.queue = QueueRepository(session)
        self.logs = LogRepository(session)
        self.nodes = NodeRepository(session)
        self.routes = RouteRepository(session)
