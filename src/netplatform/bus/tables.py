"""The bus controller's tables (``bus_`` prefix), one per object of spec 2.3.

Every table has an integer surrogate key ``id`` (creation order, for "first central location"
and list order) beside the object's natural key, which is unique. Column names are the snake
case of the wire names, so :mod:`.repository.rows` maps rows to wire models mechanically.

Feeds, publishers and subscribers may exist here before the file-distribution service has given
them their ids (provisioning failed: status INVALID), so ``feed_id``, ``pub_id`` and ``sub_id``
are nullable-unique and publishers/subscribers point at their feed through ``feed_ref``.
"""

from __future__ import annotations

from sqlalchemy import JSON, BigInteger, Boolean, Column, ForeignKey, Integer, Table, Text, UniqueConstraint

from ..store.db import new_metadata
from ..store.generations import changes_table, generations_table

metadata = new_metadata()


def _key() -> Column[int]:
    return Column("id", Integer, primary_key=True, autoincrement=True)


def _lifecycle() -> list[Column[str]]:
    return [Column("status", Text, nullable=False), Column("last_mod", Text)]


def _verified() -> Column[str]:
    """When the background reconcile last saw the object as its router(s) should have it."""
    return Column("last_verified", Text)


settings_table = Table(
    "bus_settings",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", Text, nullable=False),
    Column("topic_ns_root", Text),
    Column("bus_name", Text),
    Column("dr_prov_url", Text),
    Column("bridge_admin_topic", Text),
    Column("logging_url", Text),
    Column("node_key", Text),
    Column("access_key_owner", Text),
    *_lifecycle(),
    # The last mrClientId handed out; the row is also the lock every message-router write takes.
    Column("last_client_id", BigInteger, nullable=False, server_default="0"),
)

locations = Table(
    "bus_locations",
    metadata,
    _key(),
    Column("svc_location_name", Text, nullable=False, unique=True),
    Column("svc_layer", Text),
    Column("clli", Text),
    Column("cloud_availability_zone", Text),
    Column("subnet", Text),
    *_lifecycle(),
)

dr_nodes = Table(
    "bus_dr_nodes",
    metadata,
    _key(),
    Column("fqdn", Text, nullable=False, unique=True),
    Column("svc_location_name", Text),
    Column("host_name", Text),
    Column("version", Text),
    Column("status_reason", Text),
    *_lifecycle(),
)

clusters = Table(
    "bus_clusters",
    metadata,
    _key(),
    Column("svc_location_name", Text, nullable=False, unique=True),
    Column("fqdn", Text),
    Column("topic_protocol", Text),
    Column("topic_port", Text),
    Column("replication_group", Text),
    Column("source_replication_port", Text),
    Column("target_replication_port", Text),
    Column("status_reason", Text),
    _verified(),
    *_lifecycle(),
)

topics = Table(
    "bus_topics",
    metadata,
    _key(),
    Column("fqtn", Text, nullable=False, unique=True),
    Column("topic_name", Text),
    Column("topic_description", Text),
    Column("owner", Text),
    Column("tnx_enabled", Text),
    Column("format_uuid", Text),
    Column("version", Text),
    Column("fqtn_style", Text),
    Column("replication_case", Text),
    Column("global_mr_url", Text),
    Column("partition_count", Text),
    Column("replication_count", Text),
    Column("publisher_role", Text),
    Column("subscriber_role", Text),
    Column("status_reason", Text),
    _verified(),
    *_lifecycle(),
)

clients = Table(
    "bus_clients",
    metadata,
    _key(),
    Column("mr_client_id", Text, nullable=False, unique=True),
    Column("fqtn", Text, nullable=False, index=True),
    Column("svc_location_name", Text, index=True),
    Column("client_role", Text),
    Column("client_identity", Text),
    Column("action", JSON, nullable=False),
    Column("topic_url", Text),
    Column("status_reason", Text),
    _verified(),
    *_lifecycle(),
)

mirror_makers = Table(
    "bus_mirror_makers",
    metadata,
    _key(),
    Column("mm_name", Text, nullable=False, unique=True),
    Column("source_cluster", Text, nullable=False),
    Column("target_cluster", Text, nullable=False),
    Column("topics", JSON, nullable=False),
    Column("status_reason", Text),
    _verified(),
    *_lifecycle(),
)

feeds = Table(
    "bus_feeds",
    metadata,
    _key(),
    Column("feed_id", Text, unique=True),
    Column("feed_name", Text, nullable=False),
    Column("feed_version", Text, nullable=False),
    Column("feed_description", Text),
    Column("owner", Text),
    Column("aspr_classification", Text),
    Column("publish_url", Text),
    Column("subscribe_url", Text),
    Column("log_url", Text),
    Column("format_uuid", Text),
    Column("suspended", Boolean, nullable=False, default=False),
    Column("status_reason", Text),
    *_lifecycle(),
    UniqueConstraint("feed_name", "feed_version"),
)

pubs = Table(
    "bus_pubs",
    metadata,
    _key(),
    Column("feed_ref", Integer, ForeignKey("bus_feeds.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("pub_id", Text, unique=True),
    Column("svc_location_name", Text),
    Column("username", Text),
    Column("userpwd", Text),
    Column("publish_url", Text),
    Column("status_reason", Text),
    *_lifecycle(),
)

subs = Table(
    "bus_subs",
    metadata,
    _key(),
    Column("feed_ref", Integer, ForeignKey("bus_feeds.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("sub_id", Text, unique=True),
    Column("svc_location_name", Text),
    Column("delivery_url", Text),
    Column("username", Text),
    Column("userpwd", Text),
    Column("log_url", Text),
    Column("owner", Text),
    Column("use100", Boolean, nullable=False, default=False),
    Column("suspended", Boolean, nullable=False, default=False),
    Column("privileged_subscriber", Boolean, nullable=False, default=False),
    Column("decompress", Boolean, nullable=False, default=False),
    Column("guaranteed_delivery", Boolean, nullable=False, default=False),
    Column("guaranteed_sequence", Boolean, nullable=False, default=False),
    Column("status_reason", Text),
    *_lifecycle(),
)

authz_removals = Table(
    "bus_authz_removals",
    metadata,
    _key(),
    Column("fqtn", Text, nullable=False),
    Column("role", Text, nullable=False),
    # The identity whose membership of ``role`` goes; NULL: the role itself goes.
    Column("member", Text),
    Column("reason", Text),
)
"""What the authz service did not remove when asked (a deleted topic's roles, a replaced client's
memberships): the background reconcile retries each (:mod:`.outbound.router.provisioning`). Not part of
the topology: no answer shows it."""

owned_roles = Table(
    "bus_owned_roles",
    metadata,
    Column("role", Text, primary_key=True),
    Column("fqtn", Text, nullable=False),
    Column("created", Text, nullable=False),
)
"""The authz roles the bus controller created (a topic's publisher and subscriber roles): the only
roles it grants on routers, adds members to, removes members from and deletes. A role of that name
it did not create is never adopted (issue 36, point 6). Not part of the topology: no answer shows it."""

router_removals = Table(
    "bus_router_removals",
    metadata,
    _key(),
    Column("router", Text, nullable=False),
    Column("fqtn", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("identity", Text, nullable=False),
    Column("reason", Text),
    UniqueConstraint("router", "fqtn", "kind", "identity"),
)
"""Grants a router did not revoke when asked (a deleted topic's or a replaced client's): the
background reconcile retries each until the router takes it, or a live client needs it again."""

generations = generations_table("bus_generations", metadata)
"""One row, scope :data:`TOPOLOGY_SCOPE`, moved on by the database itself on every write to a
table of :data:`TOPOLOGY_TABLES` (triggers of migration bus_0004): GET answers are replayed
while it stands (:mod:`netplatform.web.replay`)."""

TOPOLOGY_SCOPE = "topology"
TOPOLOGY_TABLES = (
    "bus_settings",
    "bus_locations",
    "bus_dr_nodes",
    "bus_clusters",
    "bus_topics",
    "bus_clients",
    "bus_mirror_makers",
    "bus_feeds",
    "bus_pubs",
    "bus_subs",
)

SEALED_COLUMNS = (pubs.c.userpwd, subs.c.userpwd)
"""Credentials the bus presents again (to the distribution service), sealed with the platform key
(store/secrets.py): ``netplatform secrets rotate`` seals them again, and seals a value an earlier
version stored in clear."""

changes = changes_table("bus_changes", metadata)
"""The topology's change log (migration bus_0007): each write to a topic or one of its clients
records :func:`topic_object`, a write to any other topology table NULL (every object)."""


def topic_object(fqtn: str) -> str:
    """A topic's key in :data:`changes`, as the triggers record it."""
    return f"topic:{fqtn}"
