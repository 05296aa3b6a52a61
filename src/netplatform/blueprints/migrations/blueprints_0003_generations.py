"""blueprint catalog: the catalog's generation, moved on by triggers on models and their
keywords, model types and dictionaries

Revision ID: blueprints_0003
Revises: blueprints_0002
Create Date: 2026-11-24 00:00:00
"""

from collections.abc import Sequence

from alembic import op

from netplatform.store.migrations.watched_scopes import create_watched_scope, drop_watched_scope

revision: str = "blueprints_0003"
down_revision: str | None = "blueprints_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = (
    "blueprints_models",
    "blueprints_model_keywords",
    "blueprints_model_types",
    "blueprints_dictionaries",
    "blueprints_configs",
    "blueprints_templates",
    "blueprints_resources",
)


def upgrade() -> None:
    create_watched_scope(op, "blueprints_generations", "catalog", TABLES)


def downgrade() -> None:
    drop_watched_scope(op, "blueprints_generations", TABLES)
