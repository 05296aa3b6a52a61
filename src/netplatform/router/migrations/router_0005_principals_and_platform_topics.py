"""router: ACL entries say whether they name an identity or a role; topics the router made for the
platform are marked; the mirror settings keep the allowed sources and no credential

Issue 36. ACL entries named identities and roles as one set, so an identity named like a role
passed that role's ACL: each entry now has a ``principal`` (``identity`` or ``role``). An entry
written before could have meant either; it becomes a role when a role of that name is known here
(a built-in role or one stored through authz, whose tables live in this database), else an
identity. A role known only from NETPLATFORM_USERS is not known here: grant it again as
``role:<name>`` (docs/router.md, "Access").

``router_topics.platform`` marks the bridge-admin topic the router created for the platform, the
only topic its mirror agents are defined on (a topic anyone else created is never adopted). No
existing topic is marked: a bridge-admin topic of an earlier version is refused until it is
deleted, and the router makes it again (docs/router.md, "The mirror settings").

``router_mirror_settings`` drops the stored source credential (agents present the router's own
``svc.mirror`` credential) and keeps ``sources``, the registered clusters' router URLs the bus
controller tells: the only hosts the mirror agents may connect to.

Revision ID: router_0005
Revises: router_0004
Create Date: 2026-12-08 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from netplatform.access.builtin import BUILTIN_ROLES

revision: str = "router_0005"
down_revision: str | None = "router_0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "authz_0001"  # authz_roles classifies the old entries

IDENTITY, ROLE = "identity", "role"


def upgrade() -> None:
    with op.batch_alter_table("router_acl_entries") as table:
        table.add_column(sa.Column("principal", sa.String(8), nullable=False, server_default=IDENTITY))
        table.drop_constraint("pk_router_acl_entries", type_="primary")
        table.create_primary_key("pk_router_acl_entries", ["topic", "kind", "principal", "identity"])
    entries = sa.table("router_acl_entries", sa.column("identity"), sa.column("principal"))
    stored_roles = sa.select(sa.table("authz_roles", sa.column("name")).c.name)
    op.execute(
        entries.update()
        .where(sa.or_(entries.c.identity.in_(stored_roles), entries.c.identity.in_(sorted(BUILTIN_ROLES))))
        .values(principal=ROLE)
    )
    # ALTER TABLE, not a batch: SQLite's batch recreates the table, and dropping the old one
    # would cascade to every ACL entry (foreign keys are on).
    op.add_column(
        "router_topics", sa.Column("platform", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    with op.batch_alter_table("router_mirror_settings") as table:
        table.drop_column("source_password")
        table.drop_column("source_user")
        table.add_column(sa.Column("sources", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("router_mirror_settings") as table:
        table.drop_column("sources")
        table.add_column(sa.Column("source_user", sa.Text(), nullable=True))
        table.add_column(sa.Column("source_password", sa.Text(), nullable=True))
    op.drop_column("router_topics", "platform")  # not a batch: see upgrade()
    # One entry per name again: a role's entry goes where an identity's of that name is kept.
    entries = sa.table(
        "router_acl_entries",
        sa.column("topic"),
        sa.column("kind"),
        sa.column("identity"),
        sa.column("principal"),
    )
    twin = sa.alias(entries, "twin")
    op.execute(
        entries.delete().where(
            entries.c.principal == ROLE,
            sa.exists().where(
                twin.c.topic == entries.c.topic,
                twin.c.kind == entries.c.kind,
                twin.c.identity == entries.c.identity,
                twin.c.principal == IDENTITY,
            ),
        )
    )
    with op.batch_alter_table("router_acl_entries") as table:
        table.drop_constraint("pk_router_acl_entries", type_="primary")
        table.create_primary_key("pk_router_acl_entries", ["topic", "kind", "identity"])
        table.drop_column("principal")
