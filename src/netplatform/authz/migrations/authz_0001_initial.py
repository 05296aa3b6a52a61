"""authz: identities, roles, role permissions, memberships, and their generation (moved by
triggers on every write, so every instance's decision cache learns of it)

Revision ID: authz_0001
Revises:
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from netplatform.store.migrations.watched_scopes import create_watched_scope, drop_watched_scope

revision: str = "authz_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("authz",)
depends_on: str | Sequence[str] | None = None

TABLES = ("authz_identities", "authz_roles", "authz_role_permissions", "authz_memberships")


def upgrade() -> None:
    op.create_table(
        "authz_identities",
        sa.Column("id", sa.String(255), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_authz_identities"),
    )
    op.create_table(
        "authz_roles",
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("description", sa.String(1024), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_authz_roles"),
    )
    op.create_table(
        "authz_role_permissions",
        sa.Column("role", sa.String(255), nullable=False),
        sa.Column("type", sa.String(255), nullable=False),
        sa.Column("instance", sa.String(255), nullable=False),
        sa.Column("action", sa.String(255), nullable=False),
        sa.PrimaryKeyConstraint("role", "type", "instance", "action", name="pk_authz_role_permissions"),
    )
    op.create_table(
        "authz_memberships",
        sa.Column("identity", sa.String(255), nullable=False),
        sa.Column("role", sa.String(255), nullable=False),
        sa.Column("expires", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("identity", "role", name="pk_authz_memberships"),
    )
    op.create_index("ix_authz_memberships_role", "authz_memberships", ["role"])
    create_watched_scope(op, "authz_generations", "access", TABLES)


def downgrade() -> None:
    drop_watched_scope(op, "authz_generations", TABLES)
    for table in reversed(TABLES):
        op.drop_table(table)
