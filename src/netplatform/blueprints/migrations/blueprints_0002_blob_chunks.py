"""blueprint catalog: archives kept in the database (chunk rows), so instances share no directory

Revision ID: blueprints_0002
Revises: blueprints_0001
Create Date: 2025-07-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "blueprints_0002"
down_revision: str | None = "blueprints_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Created on SQLite too (one schema for both), where archives stay files in the data directory.
    op.create_table(
        "blueprints_blob_chunks",
        sa.Column("blob_name", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("blob_name", "seq", name="pk_blueprints_blob_chunks"),
    )


def downgrade() -> None:
    op.drop_table("blueprints_blob_chunks")
