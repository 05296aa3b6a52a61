"""router: topics, ACL entries, and the embedded engine's streams, messages and group positions

Revision ID: router_0001
Revises:
Create Date: 2025-06-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "router_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("router",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "router_topics",
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("owner", sa.String(255), nullable=False),
        sa.Column("txenabled", sa.Boolean(), nullable=False),
        sa.Column("partition_count", sa.Integer(), nullable=False),
        sa.Column("replication_count", sa.Integer(), nullable=False),
        sa.Column("writer_acl_enabled", sa.Boolean(), nullable=False),
        sa.Column("reader_acl_enabled", sa.Boolean(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_router_topics"),
    )
    op.create_table(
        "router_acl_entries",
        sa.Column("topic", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("identity", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(
            ["topic"],
            ["router_topics.name"],
            name="fk_router_acl_entries_topic_router_topics",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("topic", "kind", "identity", name="pk_router_acl_entries"),
    )
    op.create_table(
        "router_streams",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("topic", sa.String(255), nullable=False),
        sa.Column("next_seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_router_streams"),
        sa.UniqueConstraint("topic", name="uq_router_streams_topic"),
    )
    op.create_table(
        "router_messages",
        sa.Column("stream_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("published_ms", sa.BigInteger(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("stream_id", "seq", name="pk_router_messages"),
    )
    op.create_table(
        "router_group_positions",
        sa.Column("stream_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("group_name", sa.String(255), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("stream_id", "group_name", name="pk_router_group_positions"),
    )


def downgrade() -> None:
    op.drop_table("router_group_positions")
    op.drop_table("router_messages")
    op.drop_table("router_streams")
    op.drop_table("router_acl_entries")
    op.drop_table("router_topics")
