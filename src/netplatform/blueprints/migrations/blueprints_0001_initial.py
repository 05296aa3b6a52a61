"""blueprint catalog: models, keywords, model types, dictionaries, configs, templates, resources

Revision ID: blueprints_0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "blueprints_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("blueprints",)
depends_on: str | Sequence[str] | None = None

NAME = 255


def _name(column: str, nullable: bool = False) -> sa.Column[str]:
    return sa.Column(column, sa.String(NAME), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "blueprints_models",
        sa.Column("id", sa.String(36), nullable=False),
        _name("artifact_name"),
        _name("artifact_version"),
        sa.Column("artifact_type", sa.String(64), nullable=False),
        sa.Column("artifact_description", sa.Text(), nullable=False),
        sa.Column("published", sa.String(1), nullable=False),
        _name("updated_by"),
        sa.Column("tags", sa.Text(), nullable=False),
        sa.Column("tags_lower", sa.Text(), nullable=False),
        sa.Column("created_date", sa.DateTime(), nullable=False),
        sa.Column("blob_name", sa.String(32), nullable=False),
        sa.Column("blob_size", sa.BigInteger(), nullable=False),
        sa.Column("workflows", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_blueprints_models"),
        sa.UniqueConstraint("artifact_name", "artifact_version", name="uq_blueprints_models_name_version"),
    )
    op.create_index("ix_blueprints_models_created_date", "blueprints_models", ["created_date", "id"])
    op.create_index("ix_blueprints_models_artifact_version", "blueprints_models", ["artifact_version", "id"])
    op.create_index("ix_blueprints_models_published", "blueprints_models", ["published"])

    op.create_table(
        "blueprints_model_keywords",
        sa.Column("model_id", sa.String(36), nullable=False),
        sa.Column("keyword", sa.String(1024), nullable=False),
        sa.ForeignKeyConstraint(
            ["model_id"],
            ["blueprints_models.id"],
            name="fk_blueprints_model_keywords_model",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("model_id", "keyword", name="pk_blueprints_model_keywords"),
    )
    op.create_index("ix_blueprints_model_keywords_keyword", "blueprints_model_keywords", ["keyword"])

    op.create_table(
        "blueprints_model_types",
        _name("name"),
        _name("derived_from"),
        sa.Column("definition_type", sa.String(32), nullable=False),
        sa.Column("definition", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        _name("version"),
        sa.Column("tags", sa.Text(), nullable=True),
        sa.Column("tags_lower", sa.Text(), nullable=True),
        sa.Column("creation_date", sa.DateTime(), nullable=False),
        _name("updated_by"),
        sa.PrimaryKeyConstraint("name", name="pk_blueprints_model_types"),
    )
    op.create_index(
        "ix_blueprints_model_types_definition_type", "blueprints_model_types", ["definition_type"]
    )

    op.create_table(
        "blueprints_dictionaries",
        _name("name"),
        _name("data_type"),
        _name("entry_schema", nullable=True),
        _name("dictionary_group"),
        sa.Column("definition", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("tags", sa.Text(), nullable=False),
        sa.Column("tags_lower", sa.Text(), nullable=False),
        sa.Column("creation_date", sa.DateTime(), nullable=False),
        _name("updated_by"),
        sa.PrimaryKeyConstraint("name", name="pk_blueprints_dictionaries"),
    )
    op.create_index("ix_blueprints_dictionaries_group", "blueprints_dictionaries", ["dictionary_group"])

    op.create_table(
        "blueprints_configs",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(36), nullable=False),
        _name("resource_type"),
        _name("resource_id"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("config_snapshot", sa.Text(), nullable=False),
        sa.Column("created_date", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_blueprints_configs"),
        sa.UniqueConstraint("id", name="uq_blueprints_configs_id"),
        sa.UniqueConstraint("resource_type", "resource_id", "status", name="uq_blueprints_configs_key"),
    )
    op.create_index("ix_blueprints_configs_resource_id", "blueprints_configs", ["resource_id"])
    op.create_index("ix_blueprints_configs_resource_type", "blueprints_configs", ["resource_type"])

    op.create_table(
        "blueprints_templates",
        sa.Column("id", sa.String(36), nullable=False),
        _name("blueprint_name"),
        _name("blueprint_version"),
        _name("artifact_name"),
        _name("resolution_key"),
        _name("resource_type"),
        _name("resource_id"),
        sa.Column("occurrence", sa.Integer(), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.Column("created_date", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_blueprints_templates"),
        sa.UniqueConstraint(
            "blueprint_name",
            "blueprint_version",
            "artifact_name",
            "resolution_key",
            "resource_type",
            "resource_id",
            "occurrence",
            name="uq_blueprints_templates_key",
        ),
    )

    op.create_table(
        "blueprints_resources",
        sa.Column("id", sa.String(36), nullable=False),
        _name("blueprint_name"),
        _name("blueprint_version"),
        _name("artifact_name"),
        _name("name"),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        _name("resolution_key"),
        _name("resource_type"),
        _name("resource_id"),
        sa.Column("occurrence", sa.Integer(), nullable=False),
        _name("dictionary_name", nullable=True),
        _name("dictionary_source", nullable=True),
        sa.Column("dictionary_version", sa.Integer(), nullable=True),
        sa.Column("created_date", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_blueprints_resources"),
        sa.UniqueConstraint(
            "blueprint_name",
            "blueprint_version",
            "artifact_name",
            "resolution_key",
            "resource_type",
            "resource_id",
            "occurrence",
            "name",
            name="uq_blueprints_resources_key",
        ),
    )
    op.create_index(
        "ix_blueprints_resources_by_key",
        "blueprints_resources",
        ["blueprint_name", "blueprint_version", "resolution_key"],
    )
    op.create_index(
        "ix_blueprints_resources_by_resource",
        "blueprints_resources",
        ["blueprint_name", "resource_type", "resource_id"],
    )


def downgrade() -> None:
    for table in (
        "blueprints_resources",
        "blueprints_templates",
        "blueprints_configs",
        "blueprints_dictionaries",
        "blueprints_model_types",
        "blueprints_model_keywords",
        "blueprints_models",
    ):
        op.drop_table(table)
