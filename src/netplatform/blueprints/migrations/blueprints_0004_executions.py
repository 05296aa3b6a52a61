"""blueprint catalog: the audit of workflow executions

Revision ID: blueprints_0004
Revises: blueprints_0003
Create Date: 2026-11-27 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "blueprints_0004"
down_revision: str | None = "blueprints_0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "blueprints_executions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("request_id", sa.String(255), nullable=False),
        sa.Column("sub_request_id", sa.String(255), nullable=False),
        sa.Column("originator_id", sa.String(255), nullable=False),
        sa.Column("blueprint_name", sa.String(255), nullable=False),
        sa.Column("blueprint_version", sa.String(255), nullable=False),
        sa.Column("blueprint_uuid", sa.String(36), nullable=True),
        sa.Column("workflow_name", sa.String(255), nullable=False),
        sa.Column("request_mode", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("request_content", sa.Text(), nullable=False),
        sa.Column("response_content", sa.Text(), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("instance", sa.String(255), nullable=False),
        sa.Column("start_date", sa.DateTime(), nullable=False),
        sa.Column("end_date", sa.DateTime(), nullable=True),
        sa.Column("updated_date", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_blueprints_executions"),
    )
    op.create_index(
        "ix_blueprints_executions_request", "blueprints_executions", ["request_id", "sub_request_id"]
    )
    op.create_index("ix_blueprints_executions_start_date", "blueprints_executions", ["start_date"])
    op.create_index(
        "ix_blueprints_executions_status_instance", "blueprints_executions", ["status", "instance"]
    )


def downgrade() -> None:
    op.drop_table("blueprints_executions")
