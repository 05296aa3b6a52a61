"""distribution: sites on their own stores

* ``distribution_logs.node``: the node that recorded a log record; ``origin_id``: its id at the
  edge node that shipped it to central (unique per node, so a batch sent twice is taken once).
* ``distribution_central``: at an edge node, the generation of central's provisioning its replica
  holds, when central last answered, and the last log record shipped there.
* ``distribution_network_generations``: scope ``network``, moved on by every write to the route
  tables (and by a node registered at central): with the provisioning scope, what an edge follows.

Revision ID: distribution_0009
Revises: distribution_0008
Create Date: 2026-12-07 23:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from netplatform.store.migrations.watched_scopes import create_watched_scope, drop_watched_scope

revision: str = "distribution_0009"
down_revision: str | None = "distribution_0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENERATIONS = "distribution_network_generations"
ROUTES = ("distribution_ingress_routes", "distribution_egress_routes")


def upgrade() -> None:
    op.add_column("distribution_logs", sa.Column("node", sa.String(128), nullable=True))
    op.add_column("distribution_logs", sa.Column("origin_id", sa.BigInteger, nullable=True))
    op.create_index(
        "uq_distribution_logs_node_origin_id", "distribution_logs", ["node", "origin_id"], unique=True
    )
    op.create_table(
        "distribution_central",
        sa.Column("source", sa.String(512), primary_key=True),
        sa.Column("generation", sa.BigInteger, nullable=False),
        sa.Column("synced_ms", sa.BigInteger, nullable=True),
        sa.Column("shipped_log_id", sa.BigInteger, nullable=False),
    )
    create_watched_scope(op, GENERATIONS, "network", ROUTES)


def downgrade() -> None:
    drop_watched_scope(op, GENERATIONS, ROUTES)
    op.drop_table("distribution_central")
    op.drop_index("uq_distribution_logs_node_origin_id", "distribution_logs")
    with op.batch_alter_table("distribution_logs") as batch:
        batch.drop_column("origin_id")
        batch.drop_column("node")
