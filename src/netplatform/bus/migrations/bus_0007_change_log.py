"""bus controller: the topology's change log, keyed by topic

Each write to a topic or to one of its clients records ``topic:<fqtn>`` under the generation it
moves (store/migrations/watched_scopes.py), so a write keeps the replayed answers of every other
topic (web/replay.py). Writes to the other topology tables change every object (a NULL key).

Revision ID: bus_0007
Revises: bus_0006
Create Date: 2026-12-07 00:00:00
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import ChangeLog, Keyed, create_change_log, drop_change_log

revision: str = "bus_0007"
down_revision: str | None = "bus_0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENERATIONS = "bus_generations"
SCOPE = "topology"
LOG = ChangeLog("bus_changes")
BEFORE = (
    "bus_settings",
    "bus_locations",
    "bus_dr_nodes",
    "bus_clusters",
    "bus_topics",
    "bus_clients",
    "bus_mirror_makers",
    "bus_feeds",
    "bus_pubs",
    "bus_subs",
)
AFTER = tuple(
    Keyed(table, "'topic:' || {row}.fqtn") if table in ("bus_topics", "bus_clients") else table
    for table in BEFORE
)


def upgrade() -> None:
    create_change_log(op, GENERATIONS, SCOPE, LOG, BEFORE, AFTER)


def downgrade() -> None:
    drop_change_log(op, GENERATIONS, SCOPE, LOG, BEFORE, AFTER)
