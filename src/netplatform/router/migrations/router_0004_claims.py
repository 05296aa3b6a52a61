"""router: the embedded engine's open claims, given back when their router died answering

Revision ID: router_0004
Revises: router_0003
Create Date: 2026-11-27 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "router_0004"
down_revision: str | None = "router_0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Identifier = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "router_claims",
        sa.Column("id", Identifier, autoincrement=True, nullable=False),
        sa.Column("stream_id", sa.BigInteger(), nullable=False),
        sa.Column("group_name", sa.String(255), nullable=False),
        sa.Column("first_seq", sa.BigInteger(), nullable=False),
        sa.Column("holder", sa.String(255), nullable=False),
        sa.Column("until_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_router_claims"),
    )
    op.create_index("ix_router_claims_until_ms", "router_claims", ["until_ms"])


def downgrade() -> None:
    op.drop_index("ix_router_claims_until_ms", table_name="router_claims")
    op.drop_table("router_claims")
