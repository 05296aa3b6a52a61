"""The tables of the file-distribution service (all named ``distribution_*``).

Feeds and subscriptions are soft-deleted (``deleted``): their ids are never reused and the log
records of a deleted feed or subscription stay queryable through them. The delivery queue is
three tables: ``files`` (one row per spooled publish or retraction, naming its blob in the store of
the node that holds it), ``deliveries`` (one row per file and subscription still to be delivered,
forwarded or acknowledged by a privileged subscriber, at the node holding the file) and ``queues``
(one row per subscription and node: who holds it, when it may be tried again, the learned
redirect base).

Sites and nodes (spec 1.3): ``nodes`` (every instance running distribution, with its heartbeat),
``ingress_routes`` (which sites a feed's publisher may publish at) and ``egress_routes`` (the node
that delivers a subscription's files).
"""

from __future__ import annotations

import sqlalchemy as sa

from ..store.db import new_metadata
from ..store.generations import changes_table, generations_table

metadata = new_metadata()

# SQLite only autoincrements an INTEGER PRIMARY KEY; PostgreSQL gets a BIGINT identity.
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

OwnerName = sa.String(255)
"""A feed's ``publisher``, a subscription's ``subscriber``: the identity named in
``X-BUS-DR-ON-BEHALF-OF`` (1 to 8 characters) by a caller that may act for others, else the
caller itself, whose name may be as long as an identity's (access/tables.py)."""

counters = sa.Table(
    "distribution_counters",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.BigInteger, nullable=False),
)

feeds = sa.Table(
    "distribution_feeds",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(20), nullable=False),
    sa.Column("version", sa.String(20), nullable=False),
    sa.Column("description", sa.String(256), nullable=False),
    sa.Column("business_description", sa.String(256), nullable=False),
    sa.Column("classification", sa.String(32), nullable=False),
    # [{"id", "password_hash"}]: argon2id hashes, never a password (migration 0005).
    sa.Column("endpoint_ids", sa.JSON, nullable=False),
    sa.Column("endpoint_addrs", sa.JSON, nullable=False),
    sa.Column("suspend", sa.Boolean, nullable=False),
    sa.Column("groupid", sa.BigInteger, nullable=False),
    sa.Column("authz_instance", sa.String(256), nullable=False),
    # Governed by the platform.distribution.feed permissions of authz_instance (migration 0005).
    sa.Column("authz_framework", sa.Boolean, nullable=False, server_default=sa.false()),
    # The identity that created the feed (distribution_0008: up to an identity name's length).
    sa.Column("publisher", OwnerName, nullable=False),
    sa.Column("deleted", sa.Boolean, nullable=False),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("modified_ms", sa.BigInteger, nullable=False),
    # "This feed already exists": name+version is unique among live feeds only, so a deleted
    # feed frees its name for reuse.
    sa.Index(
        "uq_distribution_feeds_live_name_version",
        "name",
        "version",
        unique=True,
        sqlite_where=sa.text("deleted = 0"),
        postgresql_where=sa.text("NOT deleted"),
    ),
)

subscriptions = sa.Table(
    "distribution_subscriptions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("feed_id", sa.Integer, sa.ForeignKey("distribution_feeds.id"), nullable=False, index=True),
    sa.Column("delivery_url", sa.String(256), nullable=False),
    sa.Column("delivery_user", sa.String(20), nullable=False),
    # Sealed with the platform key (store/secrets.py, distribution_0008): SEALED_COLUMNS.
    sa.Column("delivery_password", sa.Text, nullable=False),
    sa.Column("use100", sa.Boolean, nullable=False),
    sa.Column("metadata_only", sa.Boolean, nullable=False),
    sa.Column("follow_redirect", sa.Boolean, nullable=False),
    sa.Column("suspend", sa.Boolean, nullable=False),
    sa.Column("decompress", sa.Boolean, nullable=False),
    sa.Column("privileged", sa.Boolean, nullable=False),
    sa.Column("groupid", sa.BigInteger, nullable=False),
    sa.Column("authz_instance", sa.String(256), nullable=False),
    sa.Column("subscriber", OwnerName, nullable=False),
    sa.Column("created_date", sa.BigInteger, nullable=False),
    sa.Column("deleted", sa.Boolean, nullable=False),
)

SEALED_COLUMNS = (subscriptions.c.delivery_password,)
"""Secrets sealed with the platform key: ``netplatform secrets rotate`` seals them again."""

NodeName = sa.String(128)
"""A node's name: its ``NETPLATFORM_INSTANCE_NAME``."""

queues = sa.Table(
    "distribution_queues",
    metadata,
    sa.Column("sub_id", sa.Integer, sa.ForeignKey("distribution_subscriptions.id"), primary_key=True),
    sa.Column("node", NodeName, primary_key=True),
    sa.Column("claimed_by", sa.String(128), nullable=True),
    sa.Column("claimed_until_ms", sa.BigInteger, nullable=True),
    sa.Column("retry_at_ms", sa.BigInteger, nullable=False),
    sa.Column("retry_delay_s", sa.Float, nullable=False),
    sa.Column("redirect_base", sa.Text, nullable=True),
)

files = sa.Table(
    "distribution_files",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("node", NodeName, nullable=False),
    sa.Column("publish_id", sa.String(160), nullable=False),
    sa.Column("feed_id", sa.Integer, nullable=False),
    sa.Column("file_id", sa.Text, nullable=False),
    sa.Column("method", sa.String(8), nullable=False),
    sa.Column("blob", sa.String(32), nullable=True),
    # A small body is kept here instead of in a blob (distribution_0007): one fsync, no file.
    sa.Column("body", sa.LargeBinary, nullable=True),
    sa.Column("content_length", sa.BigInteger, nullable=False),
    sa.Column("headers", sa.JSON, nullable=False),
    sa.Column("published_ms", sa.BigInteger, nullable=False),
    # A forwarded file has the same publish id at the receiving and the delivering node.
    sa.UniqueConstraint("node", "publish_id"),
)

deliveries = sa.Table(
    "distribution_deliveries",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("sub_id", sa.Integer, sa.ForeignKey("distribution_subscriptions.id"), nullable=False),
    sa.Column("file_row", sa.BigInteger, sa.ForeignKey("distribution_files.id"), nullable=False, index=True),
    sa.Column("node", NodeName, nullable=False),  # the node holding the file (its files.node)
    sa.Column("attempts", sa.Integer, nullable=False),
    # privileged subscriptions: delivered, awaiting acknowledgement, offered again at this time
    sa.Column("offer_again_ms", sa.BigInteger, nullable=True),
    sa.Index("ix_distribution_deliveries_sub_id_id", "sub_id", "id"),
    sa.Index("ix_distribution_deliveries_node_sub_id_id", "node", "sub_id", "id"),
)

logs = sa.Table(
    "distribution_logs",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("type", sa.String(3), nullable=False),
    sa.Column("date_ms", sa.BigInteger, nullable=False),
    sa.Column("feed_id", sa.Integer, nullable=False),
    sa.Column("sub_id", sa.Integer, nullable=True),
    sa.Column("publish_id", sa.String(160), nullable=False),
    sa.Column("request_uri", sa.Text, nullable=False),
    sa.Column("method", sa.String(8), nullable=False),
    sa.Column("content_type", sa.Text, nullable=True),
    sa.Column("content_length", sa.BigInteger, nullable=True),
    sa.Column("source_ip", sa.String(64), nullable=True),
    sa.Column("endpoint_id", sa.String(20), nullable=True),
    sa.Column("file_name", sa.Text, nullable=True),
    sa.Column("status_code", sa.Integer, nullable=True),
    sa.Column("delivery_id", sa.String(20), nullable=True),
    sa.Column("expiry_reason", sa.String(20), nullable=True),
    sa.Column("attempts", sa.Integer, nullable=True),
    # The node that recorded it (distribution_0009); an edge's records shipped to central keep
    # their id at the edge in origin_id, so a batch sent twice is taken once.
    sa.Column("node", NodeName, nullable=True),
    sa.Column("origin_id", sa.BigInteger, nullable=True),
    sa.Index("ix_distribution_logs_feed_id_date_ms", "feed_id", "date_ms"),
    sa.Index("uq_distribution_logs_node_origin_id", "node", "origin_id", unique=True),
    sa.Index("ix_distribution_logs_sub_id_date_ms", "sub_id", "date_ms"),
)

central = sa.Table(
    "distribution_central",
    metadata,
    # At an edge node (NETPLATFORM_DISTRIBUTION_CENTRAL_URL, distribution_0009): how far its
    # replica of central's provisioning and its log shipping have come, per central URL.
    sa.Column("source", sa.String(512), primary_key=True),
    sa.Column("generation", sa.BigInteger, nullable=False),
    sa.Column("synced_ms", sa.BigInteger, nullable=True),
    sa.Column("shipped_log_id", sa.BigInteger, nullable=False),
)

nodes = sa.Table(
    "distribution_nodes",
    metadata,
    sa.Column("name", NodeName, primary_key=True),
    sa.Column("site", sa.String(128), nullable=False),
    sa.Column("url", sa.String(512), nullable=False),
    sa.Column("started_ms", sa.BigInteger, nullable=False),
    sa.Column("heartbeat_ms", sa.BigInteger, nullable=False),
    sa.Column("stopped_ms", sa.BigInteger, nullable=True),  # set by a clean stop, cleared at start
)

ingress_routes = sa.Table(
    "distribution_ingress_routes",
    metadata,
    sa.Column("feed_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("publisher", sa.String(20), primary_key=True),  # an endpoint id; "" = any publisher
    sa.Column("sites", sa.JSON, nullable=False),
)

egress_routes = sa.Table(
    "distribution_egress_routes",
    metadata,
    sa.Column("sub_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("node", NodeName, nullable=False),
)

generations = generations_table("distribution_generations", metadata)
"""One row, scope :data:`PROVISIONING_SCOPE`, moved on by the database itself on every write to
a table of :data:`PROVISIONING_TABLES` (triggers of migration distribution_0004): GET answers of
feeds and subscriptions are replayed while it stands (:mod:`netplatform.web.replay`). Publishes,
deliveries and logs write other tables, so they do not move it."""

PROVISIONING_SCOPE = "provisioning"
PROVISIONING_TABLES = ("distribution_feeds", "distribution_subscriptions")

network_generations = generations_table("distribution_network_generations", metadata)
"""One row, scope :data:`NETWORK_SCOPE`, moved on by triggers on the route tables (migration
distribution_0009) and by a node registered or moved at central: with :data:`generations`, what an
edge's replica of central's provisioning follows (:mod:`.sites`)."""

NETWORK_SCOPE = "network"
NETWORK_TABLES = ("distribution_ingress_routes", "distribution_egress_routes")

changes = changes_table("distribution_changes", metadata)
"""The provisioning scope's change log (migration distribution_0006): each write to a feed
records ``feed:<id>``, to a subscription ``subscription:<id>`` (:func:`feed_object`,
:func:`subscription_object`), so the replayed answers of the others stand."""


def feed_object(feed_id: int) -> str:
    """A feed's key in :data:`changes`, as the triggers record it."""
    return f"feed:{feed_id}"


def subscription_object(sub_id: int) -> str:
    """A subscription's key in :data:`changes`, as the triggers record it."""
    return f"subscription:{sub_id}"
