"""The bus controller's transaction lock (its number: :class:`~netplatform.store.locks.LockNamespace`)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...store.locks import LockNamespace, transaction_lock


def lock_topology(session: Session) -> None:
    """Serialise this write transaction with every other bus write that changes or reads the
    topology to change it (settings, locations, clusters, topics, clients, bridges), until it
    ends: a topic's bridges are planned and a client's id drawn from what the last one left.

    Take it first in the transaction (one lock order for every writer)."""
    transaction_lock(session, LockNamespace.BUS_TOPOLOGY)
