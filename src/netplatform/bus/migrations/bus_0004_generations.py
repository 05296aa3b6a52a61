"""bus controller: the topology's generation, moved on by triggers on every bus table

Revision ID: bus_0004
Revises: bus_0003
Create Date: 2026-11-24 00:00:00
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import create_watched_scope, drop_watched_scope

revision: str = "bus_0004"
down_revision: str | None = "bus_0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = (
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


def upgrade() -> None:
    create_watched_scope(op, "bus_generations", "topology", TABLES)


def downgrade() -> None:
    drop_watched_scope(op, "bus_generations", TABLES)
