"""blueprint catalog: configs, resolved templates and resolved resources no longer move the
catalog's generation

Revision ID: blueprints_0005
Revises: blueprints_0004
Create Date: 2026-12-07 00:00:00

Migration 0003 watched them with the catalog's tables, though no replayed answer reads them
(tables.py's CATALOG_TABLES never listed them). Every workflow run that stores its result then
moved the one generation row: on PostgreSQL each run's commit queued on that row's lock behind
the one before (executions ran one commit at a time), and every run ended the replay of every
blueprint, model type and dictionary answer.
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import unwatching, watching

revision: str = "blueprints_0005"
down_revision: str | None = "blueprints_0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENERATIONS = "blueprints_generations"
RESULT_TABLES = ("blueprints_configs", "blueprints_templates", "blueprints_resources")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for statement in unwatching(dialect, GENERATIONS, RESULT_TABLES, every_table=False):
        op.execute(statement)


def downgrade() -> None:
    for statement in watching(op.get_bind().dialect.name, GENERATIONS, "catalog", RESULT_TABLES):
        op.execute(statement)
