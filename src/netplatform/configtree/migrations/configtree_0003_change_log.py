"""config tree: the tree's change log, keyed by list entry

Each write to an entry row records ``entry:<container>|<list>|<key digest>`` under the
generation it moves (store/migrations/watched_scopes.py), so a write keeps the replayed answers
of every other entry (web/replay.py). A container row holds what is not in an entry: its writes
change every object (a NULL key).

Revision ID: configtree_0003
Revises: configtree_0002
Create Date: 2026-12-07 00:00:00
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import ChangeLog, Keyed, create_change_log, drop_change_log

revision: str = "configtree_0003"
down_revision: str | None = "configtree_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENERATIONS = "configtree_generations"
SCOPE = "tree"
LOG = ChangeLog("configtree_changes")
BEFORE = ("configtree_containers", "configtree_entries")
AFTER = (
    "configtree_containers",
    Keyed(
        "configtree_entries", "'entry:' || {row}.container || '|' || {row}.list || '|' || {row}.key_digest"
    ),
)


def upgrade() -> None:
    create_change_log(op, GENERATIONS, SCOPE, LOG, BEFORE, AFTER)


def downgrade() -> None:
    drop_change_log(op, GENERATIONS, SCOPE, LOG, BEFORE, AFTER)
