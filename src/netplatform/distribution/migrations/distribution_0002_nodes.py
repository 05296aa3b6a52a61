"""distribution: nodes per site, node-local spools, ingress and egress routes (spec 1.3)

Spooled files and deliveries now name the node that holds the file, and delivery queues are per
subscription and node. Rows written before this revision name no node (``""``); a node adopts
them when it starts and finds their blob in its own store
(``repository.queue.QueueRepository.adopt_orphans``).

Revision ID: distribution_0002
Revises: distribution_0001
Create Date: 2025-02-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "distribution_0002"
down_revision: str | None = "distribution_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NodeName = sa.String(128)


def upgrade() -> None:
    _create_route_tables()
    with op.batch_alter_table("distribution_files") as batch:
        batch.add_column(sa.Column("node", NodeName, nullable=False, server_default=""))
        batch.drop_constraint("uq_distribution_files_publish_id", type_="unique")
        batch.create_unique_constraint("uq_distribution_files_node_publish_id", ["node", "publish_id"])
    with op.batch_alter_table("distribution_deliveries") as batch:
        batch.add_column(sa.Column("node", NodeName, nullable=False, server_default=""))
    op.create_index(
        "ix_distribution_deliveries_node_sub_id_id", "distribution_deliveries", ["node", "sub_id", "id"]
    )
    with op.batch_alter_table("distribution_queues") as batch:
        batch.add_column(sa.Column("node", NodeName, nullable=False, server_default=""))
        batch.drop_constraint("pk_distribution_queues", type_="primary")
        batch.create_primary_key("pk_distribution_queues", ["sub_id", "node"])


def _create_route_tables() -> None:
    op.create_table(
        "distribution_nodes",
        sa.Column("name", NodeName, nullable=False),
        sa.Column("site", sa.String(128), nullable=False),
        sa.Column("url", sa.String(512), nullable=False),
        sa.Column("started_ms", sa.BigInteger, nullable=False),
        sa.Column("heartbeat_ms", sa.BigInteger, nullable=False),
        sa.Column("stopped_ms", sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint("name", name="pk_distribution_nodes"),
    )
    op.create_table(
        "distribution_ingress_routes",
        sa.Column("feed_id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("publisher", sa.String(20), nullable=False),
        sa.Column("sites", sa.JSON, nullable=False),
        sa.PrimaryKeyConstraint("feed_id", "publisher", name="pk_distribution_ingress_routes"),
    )
    op.create_table(
        "distribution_egress_routes",
        sa.Column("sub_id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("node", NodeName, nullable=False),
        sa.PrimaryKeyConstraint("sub_id", name="pk_distribution_egress_routes"),
    )


def downgrade() -> None:
    with op.batch_alter_table("distribution_queues") as batch:
        batch.drop_constraint("pk_distribution_queues", type_="primary")
        batch.create_primary_key("pk_distribution_queues", ["sub_id"])
        batch.drop_column("node")
    op.drop_index("ix_distribution_deliveries_node_sub_id_id", "distribution_deliveries")
    with op.batch_alter_table("distribution_deliveries") as batch:
        batch.drop_column("node")
    with op.batch_alter_table("distribution_files") as batch:
        batch.drop_constraint("uq_distribution_files_node_publish_id", type_="unique")
        batch.create_unique_constraint("uq_distribution_files_publish_id", ["publish_id"])
        batch.drop_column("node")
    for table in ("distribution_egress_routes", "distribution_ingress_routes", "distribution_nodes"):
        op.drop_table(table)
