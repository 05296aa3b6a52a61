"""distribution: delivery passwords sealed; owners named by their whole identity

``distribution_subscriptions.delivery_password`` holds the password sealed with the platform
key (``sealed:1:<token>``, store/secrets.py), longer than the 32 characters of a password: the
column becomes TEXT. The passwords stored in clear before are sealed by the first start of
distribution (Provisioning.seal_clear_passwords) and by ``netplatform secrets rotate``: the
migration has no key (it is configuration, not data), and until then a clear value opens as
itself, so deliveries go on.

``publisher`` and ``subscriber`` name the identity that created the object: the one named in
``X-BUS-DR-ON-BEHALF-OF`` (1 to 8 characters) by a caller that may act for others, else the
authenticated caller itself, whose name may be as long as any identity's (255).

Only PostgreSQL enforces a VARCHAR's length, and there the change is to the catalog alone (no
table rewrite). SQLite stores any length in these columns already, so its tables are left as
they are: rebuilding them (batch mode) would drop the generation and change-log triggers of
distribution_0004 and distribution_0006.

Revision ID: distribution_0008
Revises: distribution_0007
Create Date: 2027-01-10 00:00:00
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

revision: str = "distribution_0008"
down_revision: str | None = "distribution_0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WIDENED = (
    ("distribution_subscriptions", "delivery_password", sa.String(32), sa.Text()),
    ("distribution_feeds", "publisher", sa.String(8), sa.String(255)),
    ("distribution_subscriptions", "subscriber", sa.String(8), sa.String(255)),
)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    with _no_pending_trigger_events():
        for table, column, old, new in _WIDENED:
            op.alter_column(table, column, type_=new, existing_type=old, existing_nullable=False)


@contextmanager
def _no_pending_trigger_events() -> Iterator[None]:
    """PostgreSQL refuses to ALTER a table with trigger events pending in the transaction, and
    every migration of an upgrade runs in one: an earlier one that rewrote rows of a watched table
    (distribution_0005 rewrites each feed's endpoints) left its deferred generation triggers
    pending. Firing them now lets the ALTER run; deferred again afterwards."""
    op.execute("SET CONSTRAINTS ALL IMMEDIATE")
    yield
    op.execute("SET CONSTRAINTS ALL DEFERRED")


def downgrade() -> None:
    """Sealed passwords and long owner names do not fit the old columns: the downgrade refuses
    while any is stored (open them with the newer version's key first, or delete them)."""
    if op.get_bind().dialect.name != "postgresql":
        return
    with _no_pending_trigger_events():
        for table, column, old, new in _WIDENED:
            op.alter_column(table, column, type_=old, existing_type=new, existing_nullable=False)
