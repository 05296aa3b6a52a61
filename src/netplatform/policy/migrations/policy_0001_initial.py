"""policy: entities, statistics counters, catalog loads

Revision ID: policy_0001
Revises:
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "policy_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("policy",)
depends_on: str | Sequence[str] | None = None

COUNTERS = (
    "totalApiCallCount",
    "apiCallSuccessCount",
    "apiCallFailureCount",
    "totalPolicyGetCount",
    "totalPolicyPostCount",
    "totalPolicyTypeGetCount",
    "totalPolicyTypePostCount",
    "policyGetSuccessCount",
    "policyGetFailureCount",
    "policyPostSuccessCount",
    "policyPostFailureCount",
    "policyTypeGetSuccessCount",
    "policyTypeGetFailureCount",
    "policyTypePostSuccessCount",
    "policyTypePostFailureCount",
)


def upgrade() -> None:
    op.create_table(
        "policy_entities",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("version", sa.String(20), nullable=False),
        sa.Column("parent_name", sa.String(120), nullable=True),
        sa.Column("type_name", sa.String(120), nullable=True),
        sa.Column("type_version", sa.String(20), nullable=True),
        sa.Column("metadata_set_name", sa.String(120), nullable=True),
        sa.Column("metadata_set_version", sa.String(20), nullable=True),
        sa.Column("preloaded", sa.Boolean(), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_policy_entities"),
        sa.UniqueConstraint("kind", "name", "version", name="uq_policy_entities_kind_name_version"),
    )
    op.create_index("ix_policy_entities_parent", "policy_entities", ["kind", "parent_name"])
    op.create_index("ix_policy_entities_type", "policy_entities", ["kind", "type_name", "type_version"])
    op.create_index(
        "ix_policy_entities_metadata_set", "policy_entities", ["metadata_set_name", "metadata_set_version"]
    )
    statistics = op.create_table(
        "policy_statistics",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_policy_statistics"),
    )
    op.bulk_insert(statistics, [{"name": name, "value": 0} for name in COUNTERS])
    op.create_table(
        "policy_catalog_loads",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("loaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_policy_catalog_loads"),
    )


def downgrade() -> None:
    op.drop_table("policy_catalog_loads")
    op.drop_table("policy_statistics")
    op.drop_index("ix_policy_entities_metadata_set", table_name="policy_entities")
    op.drop_index("ix_policy_entities_type", table_name="policy_entities")
    op.drop_index("ix_policy_entities_parent", table_name="policy_entities")
    op.drop_table("policy_entities")
