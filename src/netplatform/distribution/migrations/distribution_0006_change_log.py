"""distribution: the provisioning scope's change log, keyed by feed and by subscription

Each write to a feed or a subscription records its object (``feed:<id>``, ``subscription:<id>``)
under the generation it moves (store/migrations/watched_scopes.py), so a write keeps the
replayed answers of every other feed and subscription (web/replay.py).

Revision ID: distribution_0006
Revises: distribution_0005
Create Date: 2026-12-07 00:00:00
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import ChangeLog, Keyed, create_change_log, drop_change_log

revision: str = "distribution_0006"
down_revision: str | None = "distribution_0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENERATIONS = "distribution_generations"
SCOPE = "provisioning"
LOG = ChangeLog("distribution_changes")
BEFORE = ("distribution_feeds", "distribution_subscriptions")
AFTER = (
    Keyed("distribution_feeds", "'feed:' || {row}.id"),
    Keyed("distribution_subscriptions", "'subscription:' || {row}.id"),
)


def upgrade() -> None:
    create_change_log(op, GENERATIONS, SCOPE, LOG, BEFORE, AFTER)


def downgrade() -> None:
    drop_change_log(op, GENERATIONS, SCOPE, LOG, BEFORE, AFTER)
