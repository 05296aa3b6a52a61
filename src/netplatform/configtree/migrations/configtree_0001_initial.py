"""config tree: containers and list entries

Revision ID: configtree_0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "configtree_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("configtree",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "configtree_containers",
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_configtree_containers"),
    )
    op.create_table(
        "configtree_entries",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("container", sa.String(255), nullable=False),
        sa.Column("list", sa.String(255), nullable=False),
        sa.Column("key_digest", sa.String(64), nullable=False),
        sa.Column("key_text", sa.Text(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_configtree_entries"),
        sa.UniqueConstraint(
            "container", "list", "key_digest", name="uq_configtree_entries_container_list_key_digest"
        ),
    )


def downgrade() -> None:
    op.drop_table("configtree_entries")
    op.drop_table("configtree_containers")
