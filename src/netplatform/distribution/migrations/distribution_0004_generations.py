"""file distribution: the provisioning generation, moved on by triggers on feeds and subscriptions

Revision ID: distribution_0004
Revises: distribution_0003
Create Date: 2026-11-24 00:00:00
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import create_watched_scope, drop_watched_scope

revision: str = "distribution_0004"
down_revision: str | None = "distribution_0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("distribution_feeds", "distribution_subscriptions")


def upgrade() -> None:
    create_watched_scope(op, "distribution_generations", "provisioning", TABLES)


def downgrade() -> None:
    drop_watched_scope(op, "distribution_generations", TABLES)
