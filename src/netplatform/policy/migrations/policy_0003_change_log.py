"""policy: the entities' change log (the objects each generation step changed)

Written by the write funnel's ``bump`` (policy_store.py), not by triggers: the funnel knows
which policy types a write changes, descendants included (store/generations.py, web/replay.py).

Revision ID: policy_0003
Revises: policy_0002
Create Date: 2026-12-07
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import create_changes_table, drop_changes_table

revision: str = "policy_0003"
down_revision: str | None = "policy_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    create_changes_table(op, "policy_changes")


def downgrade() -> None:
    drop_changes_table(op, "policy_changes")
