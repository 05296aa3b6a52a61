"""distribution: feeds, subscriptions, delivery queue and log records

Revision ID: distribution_0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "distribution_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("distribution",)
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "distribution_counters",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("value", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_distribution_counters"),
    )
    op.bulk_insert(
        sa.table("distribution_counters", sa.column("name", sa.String), sa.column("value", sa.BigInteger)),
        [{"name": "feed", "value": 0}, {"name": "subscription", "value": 0}],
    )
    op.create_table(
        "distribution_feeds",
        sa.Column("id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("name", sa.String(20), nullable=False),
        sa.Column("version", sa.String(20), nullable=False),
        sa.Column("description", sa.String(256), nullable=False),
        sa.Column("business_description", sa.String(256), nullable=False),
        sa.Column("classification", sa.String(32), nullable=False),
        sa.Column("endpoint_ids", sa.JSON, nullable=False),
        sa.Column("endpoint_addrs", sa.JSON, nullable=False),
        sa.Column("suspend", sa.Boolean, nullable=False),
        sa.Column("groupid", sa.BigInteger, nullable=False),
        sa.Column("authz_instance", sa.String(256), nullable=False),
        sa.Column("publisher", sa.String(8), nullable=False),
        sa.Column("deleted", sa.Boolean, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("modified_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_distribution_feeds"),
    )
    op.create_index(
        "uq_distribution_feeds_live_name_version",
        "distribution_feeds",
        ["name", "version"],
        unique=True,
        sqlite_where=sa.text("deleted = 0"),
        postgresql_where=sa.text("NOT deleted"),
    )
    op.create_table(
        "distribution_subscriptions",
        sa.Column("id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("feed_id", sa.Integer, nullable=False),
        sa.Column("delivery_url", sa.String(256), nullable=False),
        sa.Column("delivery_user", sa.String(20), nullable=False),
        sa.Column("delivery_password", sa.String(32), nullable=False),
        sa.Column("use100", sa.Boolean, nullable=False),
        sa.Column("metadata_only", sa.Boolean, nullable=False),
        sa.Column("follow_redirect", sa.Boolean, nullable=False),
        sa.Column("suspend", sa.Boolean, nullable=False),
        sa.Column("decompress", sa.Boolean, nullable=False),
        sa.Column("privileged", sa.Boolean, nullable=False),
        sa.Column("groupid", sa.BigInteger, nullable=False),
        sa.Column("authz_instance", sa.String(256), nullable=False),
        sa.Column("subscriber", sa.String(8), nullable=False),
        sa.Column("created_date", sa.BigInteger, nullable=False),
        sa.Column("deleted", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_distribution_subscriptions"),
        sa.ForeignKeyConstraint(
            ["feed_id"],
            ["distribution_feeds.id"],
            name="fk_distribution_subscriptions_feed_id_distribution_feeds",
        ),
    )
    op.create_index(
        "ix_distribution_subscriptions_feed_id", "distribution_subscriptions", ["feed_id"], unique=False
    )
    op.create_table(
        "distribution_queues",
        sa.Column("sub_id", sa.Integer, nullable=False),
        sa.Column("claimed_by", sa.String(128), nullable=True),
        sa.Column("claimed_until_ms", sa.BigInteger, nullable=True),
        sa.Column("retry_at_ms", sa.BigInteger, nullable=False),
        sa.Column("retry_delay_s", sa.Float, nullable=False),
        sa.Column("redirect_base", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("sub_id", name="pk_distribution_queues"),
        sa.ForeignKeyConstraint(
            ["sub_id"],
            ["distribution_subscriptions.id"],
            name="fk_distribution_queues_sub_id_distribution_subscriptions",
        ),
    )
    op.create_table(
        "distribution_files",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("publish_id", sa.String(160), nullable=False),
        sa.Column("feed_id", sa.Integer, nullable=False),
        sa.Column("file_id", sa.Text, nullable=False),
        sa.Column("method", sa.String(8), nullable=False),
        sa.Column("blob", sa.String(32), nullable=True),
        sa.Column("content_length", sa.BigInteger, nullable=False),
        sa.Column("headers", sa.JSON, nullable=False),
        sa.Column("published_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_distribution_files"),
        sa.UniqueConstraint("publish_id", name="uq_distribution_files_publish_id"),
    )
    op.create_table(
        "distribution_deliveries",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("sub_id", sa.Integer, nullable=False),
        sa.Column("file_row", sa.BigInteger, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_distribution_deliveries"),
        sa.ForeignKeyConstraint(
            ["sub_id"],
            ["distribution_subscriptions.id"],
            name="fk_distribution_deliveries_sub_id_distribution_subscriptions",
        ),
        sa.ForeignKeyConstraint(
            ["file_row"],
            ["distribution_files.id"],
            name="fk_distribution_deliveries_file_row_distribution_files",
        ),
    )
    op.create_index("ix_distribution_deliveries_sub_id_id", "distribution_deliveries", ["sub_id", "id"])
    op.create_index("ix_distribution_deliveries_file_row", "distribution_deliveries", ["file_row"])
    op.create_table(
        "distribution_logs",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
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
        sa.PrimaryKeyConstraint("id", name="pk_distribution_logs"),
    )
    op.create_index("ix_distribution_logs_feed_id_date_ms", "distribution_logs", ["feed_id", "date_ms"])
    op.create_index("ix_distribution_logs_sub_id_date_ms", "distribution_logs", ["sub_id", "date_ms"])


def downgrade() -> None:
    for table in (
        "distribution_logs",
        "distribution_deliveries",
        "distribution_files",
        "distribution_queues",
        "distribution_subscriptions",
        "distribution_feeds",
        "distribution_counters",
    ):
        op.drop_table(table)
