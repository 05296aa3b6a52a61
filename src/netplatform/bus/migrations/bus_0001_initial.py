"""bus controller: initial tables

Revision ID: bus_0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "bus_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("bus",)
depends_on: str | Sequence[str] | None = None


def _key() -> sa.Column[Any]:
    return sa.Column("id", sa.Integer, primary_key=True, autoincrement=True)


def _lifecycle() -> list[sa.Column[Any]]:
    return [sa.Column("status", sa.Text, nullable=False), sa.Column("last_mod", sa.Text)]


def _texts(*names: str) -> list[sa.Column[Any]]:
    return [sa.Column(name, sa.Text) for name in names]


def _flags(*names: str) -> list[sa.Column[Any]]:
    return [sa.Column(name, sa.Boolean, nullable=False, server_default=sa.false()) for name in names]


def upgrade() -> None:
    settings = op.create_table(
        "bus_settings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("version", sa.Text, nullable=False),
        *_texts(
            "topic_ns_root",
            "bus_name",
            "dr_prov_url",
            "bridge_admin_topic",
            "logging_url",
            "node_key",
            "access_key_owner",
        ),
        *_lifecycle(),
        sa.Column("last_client_id", sa.BigInteger, nullable=False, server_default="0"),
    )
    blank = dict.fromkeys(
        (
            "topic_ns_root",
            "bus_name",
            "dr_prov_url",
            "bridge_admin_topic",
            "logging_url",
            "node_key",
            "access_key_owner",
        ),
        "",
    )
    op.bulk_insert(settings, [{"id": 1, "version": "0", "status": "NEW", "last_client_id": 0, **blank}])

    op.create_table(
        "bus_locations",
        _key(),
        sa.Column("svc_location_name", sa.Text, nullable=False, unique=True),
        *_texts("svc_layer", "clli", "cloud_availability_zone", "subnet"),
        *_lifecycle(),
    )
    op.create_table(
        "bus_dr_nodes",
        _key(),
        sa.Column("fqdn", sa.Text, nullable=False, unique=True),
        *_texts("svc_location_name", "host_name", "version"),
        *_lifecycle(),
    )
    op.create_table(
        "bus_clusters",
        _key(),
        sa.Column("svc_location_name", sa.Text, nullable=False, unique=True),
        *_texts(
            "fqdn",
            "topic_protocol",
            "topic_port",
            "replication_group",
            "source_replication_port",
            "target_replication_port",
        ),
        *_lifecycle(),
    )
    op.create_table(
        "bus_topics",
        _key(),
        sa.Column("fqtn", sa.Text, nullable=False, unique=True),
        *_texts(
            "topic_name",
            "topic_description",
            "owner",
            "tnx_enabled",
            "format_uuid",
            "version",
            "fqtn_style",
            "replication_case",
            "global_mr_url",
            "partition_count",
            "replication_count",
            "publisher_role",
            "subscriber_role",
            "status_reason",
        ),
        *_lifecycle(),
    )
    op.create_table(
        "bus_clients",
        _key(),
        sa.Column("mr_client_id", sa.Text, nullable=False, unique=True),
        sa.Column("fqtn", sa.Text, nullable=False, index=True),
        sa.Column("svc_location_name", sa.Text, index=True),
        *_texts("client_role", "client_identity"),
        sa.Column("action", sa.JSON, nullable=False),
        *_texts("topic_url", "status_reason"),
        *_lifecycle(),
    )
    op.create_table(
        "bus_mirror_makers",
        _key(),
        sa.Column("mm_name", sa.Text, nullable=False, unique=True),
        sa.Column("source_cluster", sa.Text, nullable=False),
        sa.Column("target_cluster", sa.Text, nullable=False),
        sa.Column("topics", sa.JSON, nullable=False),
        *_lifecycle(),
    )
    op.create_table(
        "bus_feeds",
        _key(),
        sa.Column("feed_id", sa.Text, unique=True),
        sa.Column("feed_name", sa.Text, nullable=False),
        sa.Column("feed_version", sa.Text, nullable=False),
        *_texts(
            "feed_description",
            "owner",
            "aspr_classification",
            "publish_url",
            "subscribe_url",
            "log_url",
            "format_uuid",
        ),
        *_flags("suspended"),
        sa.Column("status_reason", sa.Text),
        *_lifecycle(),
        sa.UniqueConstraint("feed_name", "feed_version"),
    )
    op.create_table(
        "bus_pubs",
        _key(),
        sa.Column(
            "feed_ref",
            sa.Integer,
            sa.ForeignKey("bus_feeds.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("pub_id", sa.Text, unique=True),
        *_texts("svc_location_name", "username", "userpwd", "status_reason"),
        *_lifecycle(),
    )
    op.create_table(
        "bus_subs",
        _key(),
        sa.Column(
            "feed_ref",
            sa.Integer,
            sa.ForeignKey("bus_feeds.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("sub_id", sa.Text, unique=True),
        *_texts("svc_location_name", "delivery_url", "username", "userpwd", "log_url", "owner"),
        *_flags(
            "use100",
            "suspended",
            "privileged_subscriber",
            "decompress",
            "guaranteed_delivery",
            "guaranteed_sequence",
        ),
        sa.Column("status_reason", sa.Text),
        *_lifecycle(),
    )


def downgrade() -> None:
    for table in (
        "bus_subs",
        "bus_pubs",
        "bus_feeds",
        "bus_mirror_makers",
        "bus_clients",
        "bus_topics",
        "bus_clusters",
        "bus_dr_nodes",
        "bus_locations",
        "bus_settings",
    ):
        op.drop_table(table)
