"""blueprint catalog: the device inventory and the record of config deploys

Revision ID: blueprints_0007
Revises: blueprints_0006
Create Date: 2026-12-10 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "blueprints_0007"
down_revision: str | None = "blueprints_0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "blueprints_devices",
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("port", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(255), nullable=False),
        sa.Column("password", sa.Text(), nullable=True),
        sa.Column("private_key", sa.Text(), nullable=True),
        sa.Column("host_key", sa.Text(), nullable=True),
        sa.Column("connect_timeout_s", sa.Float(), nullable=False),
        sa.Column("reply_timeout_s", sa.Float(), nullable=False),
        sa.Column("site", sa.String(255), nullable=True),
        sa.Column("created_date", sa.DateTime(), nullable=False),
        sa.Column("updated_date", sa.DateTime(), nullable=False),
        sa.Column("deploy_holder", sa.String(64), nullable=True),
        sa.Column("deploy_until", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("name", name="pk_blueprints_devices"),
    )
    op.create_table(
        "blueprints_device_deploys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("device", sa.String(255), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("request_id", sa.String(255), nullable=False),
        sa.Column("sub_request_id", sa.String(255), nullable=False),
        sa.Column("blueprint_name", sa.String(255), nullable=False),
        sa.Column("blueprint_version", sa.String(255), nullable=False),
        sa.Column("datastore", sa.String(16), nullable=True),
        sa.Column("sent", sa.Text(), nullable=True),
        sa.Column("diff", sa.Text(), nullable=True),
        sa.Column("before_config", sa.Text(), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("start_date", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_blueprints_device_deploys"),
    )
    op.create_index("ix_blueprints_device_deploys_device", "blueprints_device_deploys", ["device", "id"])
    op.create_index(
        "ix_blueprints_device_deploys_request", "blueprints_device_deploys", ["request_id", "sub_request_id"]
    )


def downgrade() -> None:
    op.drop_table("blueprints_device_deploys")
    op.drop_table("blueprints_devices")
