"""bus controller: distribution sites (why a /dr_nodes entry is not VALID; a publisher's publishURL)

Revision ID: bus_0003
Revises: bus_0002
Create Date: 2026-11-24 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "bus_0003"
down_revision: str | None = "bus_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("bus_dr_nodes") as batch:
        batch.add_column(sa.Column("status_reason", sa.Text))
    with op.batch_alter_table("bus_pubs") as batch:
        batch.add_column(sa.Column("publish_url", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("bus_pubs") as batch:
        batch.drop_column("publish_url")
    with op.batch_alter_table("bus_dr_nodes") as batch:
        batch.drop_column("status_reason")
