"""distribution: small bodies kept in their file row

A published file of at most ``publishing.INLINE_BODY_MAX`` bytes is kept in its ``distribution_files``
row (``body``) instead of a blob of the node's spool: it is then made durable by the commit that
records the file and its deliveries (one fsync for the group), and delivered without a file to
open or remove. NULL: the body is in the blob the row names (or there is none).

Revision ID: distribution_0007
Revises: distribution_0006
Create Date: 2026-12-07 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "distribution_0007"
down_revision: str | None = "distribution_0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("distribution_files") as batch:
        batch.add_column(sa.Column("body", sa.LargeBinary, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("distribution_files") as batch:
        batch.drop_column("body")
