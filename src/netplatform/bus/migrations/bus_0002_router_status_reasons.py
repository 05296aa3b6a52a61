"""bus controller: why a cluster or a mirror agent is not VALID (message-router provisioning)

Revision ID: bus_0002
Revises: bus_0001
Create Date: 2025-06-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "bus_0002"
down_revision: str | None = "bus_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("bus_clusters") as batch:
        batch.add_column(sa.Column("status_reason", sa.Text))
    with op.batch_alter_table("bus_mirror_makers") as batch:
        batch.add_column(sa.Column("status_reason", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("bus_mirror_makers") as batch:
        batch.drop_column("status_reason")
    with op.batch_alter_table("bus_clusters") as batch:
        batch.drop_column("status_reason")
