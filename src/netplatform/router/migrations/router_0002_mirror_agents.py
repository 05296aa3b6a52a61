"""router: mirror agents, their leases and the positions they copied up to

Revision ID: router_0002
Revises: router_0001
Create Date: 2025-06-15 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "router_0002"
down_revision: str | None = "router_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "router_mirror_agents",
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("source_url", sa.Text(), nullable=False),
        sa.Column("consumer", sa.Text(), nullable=False),
        sa.Column("producer", sa.Text(), nullable=False),
        sa.Column("whitelist", sa.Text(), nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_router_mirror_agents"),
    )
    op.create_table(
        "router_mirror_leases",
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("holder", sa.String(255), nullable=True),
        sa.Column("until_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("name", name="pk_router_mirror_leases"),
    )
    op.create_table(
        "router_mirror_positions",
        sa.Column("agent", sa.String(255), nullable=False),
        sa.Column("topic", sa.String(255), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("agent", "topic", name="pk_router_mirror_positions"),
    )


def downgrade() -> None:
    op.drop_table("router_mirror_positions")
    op.drop_table("router_mirror_leases")
    op.drop_table("router_mirror_agents")
