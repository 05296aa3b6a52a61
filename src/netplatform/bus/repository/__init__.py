"""Repositories of the bus controller, one class per concept, each over the caller's session.

Nothing here opens or commits a transaction: a service object runs each transaction through a
:class:`~netplatform.store.unit_of_work.UnitOfWork` over one of these classes, so one request's
reads and writes commit (or roll back) together. :class:`.topology.TopologyRepository` is the
one of every write that holds the topology lock.
"""
