"""router: mirror settings told by the bus controller, each mirrored topic's copy status, and
the router's id

Revision ID: router_0003
Revises: router_0002
Create Date: 2026-11-27 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "router_0003"
down_revision: str | None = "router_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUS_COLUMNS = ("source_head", "last_error", "failing_since_ms", "status_ms")


def upgrade() -> None:
    op.create_table(
        "router_identity",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("router_id", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_router_identity"),
    )
    # No row yet: the router makes its id at first use, so that databases cloned from one
    # migrated template (as the tests' are) do not share one.
    op.create_table(
        "router_mirror_settings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("admin_topic", sa.String(255), nullable=False),
        sa.Column("source_user", sa.Text(), nullable=True),
        sa.Column("source_password", sa.Text(), nullable=True),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_router_mirror_settings"),
    )
    with op.batch_alter_table("router_mirror_positions") as table:
        table.add_column(sa.Column("source_head", sa.BigInteger(), nullable=True))
        table.add_column(sa.Column("last_error", sa.Text(), nullable=True))
        table.add_column(sa.Column("failing_since_ms", sa.BigInteger(), nullable=True))
        table.add_column(sa.Column("status_ms", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("router_mirror_positions") as table:
        for column in reversed(STATUS_COLUMNS):
            table.drop_column(column)
    op.drop_table("router_mirror_settings")
    op.drop_table("router_identity")
