"""bus controller: the authz roles the bus controller created, the only ones it adopts

Issue 36, point 6: authz's 409 on a role's creation was taken as success, so a topic could adopt
a role someone else made (its members gained the topic, the topic's clients its permissions, and
deleting the topic deleted it). The bus now records each role it creates and touches no other.
The roles of the topics that exist at this upgrade are recorded as the bus's: they were created
(or, before this fix, adopted) by it, and the bus cannot tell which now.

Revision ID: bus_0008
Revises: bus_0007
Create Date: 2026-12-08 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "bus_0008"
down_revision: str | None = "bus_0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UPGRADED = "upgrade bus_0008"


def upgrade() -> None:
    owned = op.create_table(
        "bus_owned_roles",
        sa.Column("role", sa.Text, primary_key=True),
        sa.Column("fqtn", sa.Text, nullable=False),
        sa.Column("created", sa.Text, nullable=False),
    )
    topics = sa.table(
        "bus_topics", sa.column("fqtn"), sa.column("publisher_role"), sa.column("subscriber_role")
    )
    rows = op.get_bind().execute(sa.select(topics.c.fqtn, topics.c.publisher_role, topics.c.subscriber_role))
    found: dict[str, str] = {}
    for fqtn, *roles in rows:
        for role in roles:
            if role:
                found.setdefault(role, fqtn)
    if found:
        op.bulk_insert(
            owned, [{"role": role, "fqtn": fqtn, "created": UPGRADED} for role, fqtn in found.items()]
        )


def downgrade() -> None:
    op.drop_table("bus_owned_roles")
