"""policy: the generation of the stored entities (read answers are cached per generation)

Revision ID: policy_0002
Revises: policy_0001
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "policy_0002"
down_revision: str | None = "policy_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    generations = op.create_table(
        "policy_generations",
        sa.Column("scope", sa.String(64), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("scope", name="pk_policy_generations"),
    )
    # The row exists from the start, so the first two writers never race to insert it.
    op.bulk_insert(generations, [{"scope": "entities", "generation": 0}])


def downgrade() -> None:
    op.drop_table("policy_generations")
