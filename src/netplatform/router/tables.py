"""The message router's tables: the control plane (topics, ACLs) and the embedded engine's data.

The control plane is the same whatever the engine. The ``router_streams``, ``router_messages``,
``router_group_positions`` and ``router_claims`` tables are the embedded engine's data plane;
with JetStream they stay empty. A stream has an id of its own (not the topic name), so the rows of a
dropped and re-created topic never mix.
"""

from __future__ import annotations

import sqlalchemy as sa

from ..store.db import new_metadata

metadata = new_metadata()

Identifier = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""An auto-incrementing id on both databases (SQLite only auto-increments INTEGER keys)."""

WRITER = "writer"
READER = "reader"
IDENTITY = "identity"
ROLE = "role"

topics = sa.Table(
    "router_topics",
    metadata,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("description", sa.Text(), nullable=False),
    sa.Column("owner", sa.String(255), nullable=False, comment="identity that created the topic"),
    sa.Column("txenabled", sa.Boolean(), nullable=False),
    sa.Column("partition_count", sa.Integer(), nullable=False),
    sa.Column("replication_count", sa.Integer(), nullable=False),
    sa.Column("writer_acl_enabled", sa.Boolean(), nullable=False, comment="set by the first grant"),
    sa.Column("reader_acl_enabled", sa.Boolean(), nullable=False, comment="set by the first grant"),
    sa.Column("created_ms", sa.BigInteger(), nullable=False),
    sa.Column(
        "platform",
        sa.Boolean(),
        nullable=False,
        server_default=sa.false(),
        comment="made by the router for the platform (the bridge-admin topic); never through the API",
    ),
)

acl_entries = sa.Table(
    "router_acl_entries",
    metadata,
    sa.Column(
        "topic", sa.String(255), sa.ForeignKey("router_topics.name", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("kind", sa.String(8), primary_key=True, comment="writer or reader"),
    sa.Column("principal", sa.String(8), primary_key=True, comment="what the name is: identity or role"),
    sa.Column("identity", sa.String(255), primary_key=True, comment="the identity's or the role's name"),
)

streams = sa.Table(
    "router_streams",
    metadata,
    sa.Column("id", Identifier, primary_key=True, autoincrement=True),
    sa.Column("topic", sa.String(255), nullable=False, unique=True),
    sa.Column("next_seq", sa.BigInteger(), nullable=False, comment="sequence of the next message"),
)

messages = sa.Table(
    "router_messages",
    metadata,
    sa.Column("stream_id", sa.BigInteger(), primary_key=True, autoincrement=False),
    sa.Column("seq", sa.BigInteger(), primary_key=True, autoincrement=False),
    sa.Column("published_ms", sa.BigInteger(), nullable=False),
    sa.Column("body", sa.Text(), nullable=False),
)

group_positions = sa.Table(
    "router_group_positions",
    metadata,
    sa.Column("stream_id", sa.BigInteger(), primary_key=True, autoincrement=False),
    sa.Column("group_name", sa.String(255), primary_key=True),
    sa.Column("position", sa.BigInteger(), nullable=False, comment="last sequence handed out; 0: none"),
)

claims = sa.Table(
    "router_claims",
    metadata,
    sa.Column("id", Identifier, primary_key=True, autoincrement=True),
    sa.Column("stream_id", sa.BigInteger(), nullable=False),
    sa.Column("group_name", sa.String(255), nullable=False),
    sa.Column("first_seq", sa.BigInteger(), nullable=False, comment="the first message claimed"),
    sa.Column("holder", sa.String(255), nullable=False, comment="the instance writing the answer"),
    sa.Column("until_ms", sa.BigInteger(), nullable=False, comment="given back to the group once past"),
    sa.Index("ix_router_claims_until_ms", "until_ms"),
)
"""Claims whose answer is being written: the group's position moved past their messages already,
so a router that dies before the answer is out would take them from the group. A claim is
deleted once answered; one that outlives its lease (or its instance's crash) is given back."""

# -- mirror agents (docs/router.md, "Mirror agents") -------------------------------------------

mirror_agents = sa.Table(
    "router_mirror_agents",
    metadata,
    sa.Column("name", sa.String(255), primary_key=True, comment="the bus controller's mmName"),
    sa.Column("source_url", sa.Text(), nullable=False, comment="the source router's base URL"),
    sa.Column("consumer", sa.Text(), nullable=False, comment="as the create message said; informative"),
    sa.Column("producer", sa.Text(), nullable=False, comment="as the create message said; informative"),
    sa.Column("whitelist", sa.Text(), nullable=False, comment="topics to copy, comma-separated"),
    sa.Column("updated_ms", sa.BigInteger(), nullable=False),
)

mirror_leases = sa.Table(
    "router_mirror_leases",
    metadata,
    sa.Column("name", sa.String(255), primary_key=True, comment="an agent, or '' the admin-topic reader"),
    sa.Column("holder", sa.String(255), nullable=True, comment="the instance running it"),
    sa.Column("until_ms", sa.BigInteger(), nullable=True, comment="free once past"),
)

mirror_positions = sa.Table(
    "router_mirror_positions",
    metadata,
    sa.Column("agent", sa.String(255), primary_key=True, comment="an agent, or '' the admin-topic reader"),
    sa.Column("topic", sa.String(255), primary_key=True),
    sa.Column("position", sa.BigInteger(), nullable=False, comment="last sequence copied (read) there"),
    # The copy status (docs/router.md, "Mirror agents"), written on transitions and with positions.
    sa.Column(
        "source_head", sa.BigInteger(), nullable=True, comment="the source's last sequence, as last seen"
    ),
    sa.Column(
        "last_error", sa.Text(), nullable=True, comment="why the last attempt failed; NULL: it succeeded"
    ),
    sa.Column("failing_since_ms", sa.BigInteger(), nullable=True, comment="first failure of the current run"),
    sa.Column(
        "status_ms",
        sa.BigInteger(),
        nullable=True,
        comment="when the status was written; NULL: no attempt yet",
    ),
)

identity = sa.Table(
    "router_identity",
    metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False, comment="always 1: one row"),
    sa.Column("router_id", sa.String(64), nullable=False, comment="random, made at first use"),
)
"""One id per router database, so a mirror agent recognises its own router as a source (every
instance over the database answers with it: routes/mirror.py)."""

mirror_settings = sa.Table(
    "router_mirror_settings",
    metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False, comment="always 1: one row"),
    sa.Column("admin_topic", sa.String(255), nullable=False, comment="the bridge-admin topic; '': none"),
    sa.Column("updated_ms", sa.BigInteger(), nullable=False),
    sa.Column(
        "sources",
        sa.Text(),
        nullable=False,
        server_default="",
        comment="the registered clusters' router URLs, one a line: the only hosts agents connect to",
    ),
)
