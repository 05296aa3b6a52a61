"""authz: where this instance's directory is replicated from, up to which generation of the
source, and when the source last answered (issue 38: sites on their own stores)

Revision ID: authz_0002
Revises: authz_0001
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "authz_0002"
down_revision: str | None = "authz_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Not a watched table: following the source must not move this site's generation by itself.
    op.create_table(
        "authz_replica",
        sa.Column("source", sa.String(1024), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.Column("synced", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("source", name="pk_authz_replica"),
    )


def downgrade() -> None:
    op.drop_table("authz_replica")
