"""bus controller: when each cluster, topic, client and mirror agent was last verified on its
router, and the router revokes to retry

Revision ID: bus_0006
Revises: bus_0005
Create Date: 2026-11-27 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "bus_0006"
down_revision: str | None = "bus_0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

VERIFIED = ("bus_clusters", "bus_topics", "bus_clients", "bus_mirror_makers")


def upgrade() -> None:
    for table in VERIFIED:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("last_verified", sa.Text))
    op.create_table(
        "bus_router_removals",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("router", sa.Text, nullable=False),
        sa.Column("fqtn", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("identity", sa.Text, nullable=False),
        sa.Column("reason", sa.Text),
        sa.UniqueConstraint("router", "fqtn", "kind", "identity"),
    )


def downgrade() -> None:
    op.drop_table("bus_router_removals")
    for table in VERIFIED:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("last_verified")
