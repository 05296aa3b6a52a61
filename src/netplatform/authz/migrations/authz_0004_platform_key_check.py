"""authz: the platform key check, so an instance started with another platform key than the
store's refuses to start instead of failing on every sealed secret (access/key_check.py)

Revision ID: authz_0004
Revises: authz_0003
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "authz_0004"
down_revision: str | None = "authz_0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "platform_key_check",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("sealed", sa.String(512), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_platform_key_check"),
    )


def downgrade() -> None:
    op.drop_table("platform_key_check")
