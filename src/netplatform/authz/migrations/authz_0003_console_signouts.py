"""authz: the console's sign-outs, so a signed-out session stays out on every console instance
and across restarts (console/signouts.py)

Revision ID: authz_0003
Revises: authz_0002
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "authz_0003"
down_revision: str | None = "authz_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "console_signouts",
        sa.Column("session", sa.String(64), nullable=False),
        sa.Column("expires", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("session", name="pk_console_signouts"),
    )
    op.create_index("ix_console_signouts_expires", "console_signouts", ["expires"])


def downgrade() -> None:
    op.drop_index("ix_console_signouts_expires", "console_signouts")
    op.drop_table("console_signouts")
