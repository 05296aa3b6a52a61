"""config tree: the tree's generation, moved on by triggers on containers and entries

Revision ID: configtree_0002
Revises: configtree_0001
Create Date: 2026-11-24 00:00:00
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import create_watched_scope, drop_watched_scope

revision: str = "configtree_0002"
down_revision: str | None = "configtree_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("configtree_containers", "configtree_entries")


def upgrade() -> None:
    create_watched_scope(op, "configtree_generations", "tree", TABLES)


def downgrade() -> None:
    drop_watched_scope(op, "configtree_generations", TABLES)
