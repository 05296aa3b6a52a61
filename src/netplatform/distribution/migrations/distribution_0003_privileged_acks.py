"""distribution: deliveries awaiting a privileged subscriber's acknowledgement

A delivery to a privileged subscription (``privilegedSubscriber``) that succeeded stays queued until
the subscriber acknowledges it (``DELETE /delete/{subId}/{publishId}``); ``offer_again_ms`` is when
it is offered again meanwhile. NULL: not delivered yet (due whenever its turn comes).

Revision ID: distribution_0003
Revises: distribution_0002
Create Date: 2025-03-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "distribution_0003"
down_revision: str | None = "distribution_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("distribution_deliveries") as batch:
        batch.add_column(sa.Column("offer_again_ms", sa.BigInteger, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("distribution_deliveries") as batch:
        batch.drop_column("offer_again_ms")
