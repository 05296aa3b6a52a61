"""bus controller: the authz removals (a deleted topic's roles, a replaced client's memberships) to retry

Revision ID: bus_0005
Revises: bus_0004
Create Date: 2026-12-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "bus_0005"
down_revision: str | None = "bus_0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bus_authz_removals",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("fqtn", sa.Text, nullable=False),
        sa.Column("role", sa.Text, nullable=False),
        sa.Column("member", sa.Text),
        sa.Column("reason", sa.Text),
    )


def downgrade() -> None:
    op.drop_table("bus_authz_removals")
