"""blueprint catalog: resolved values indexed by resource only when they have one

Revision ID: blueprints_0006
Revises: blueprints_0005
Create Date: 2026-12-07 00:00:00

Values stored under a resolution key have an empty resource type and id. The index by
(blueprint, resource type, resource id) held them all under one entry prefix, and PostgreSQL,
with no statistics yet on a growing table, took it for lookups by resolution key: each run's
read and delete of its key went through every value of the blueprint (measured: 6,420 index
entries filtered for none found, 0.6 ms of the server's CPU per statement, growing with the
table). It now holds only values stored by resource. The index by (blueprint, version,
resolution key) goes: every lookup by key names the artifact too, and the unique key's index
(blueprint, version, artifact, resolution key, ...) serves it; a stored value updates two
indexes instead of four.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "blueprints_0006"
down_revision: str | None = "blueprints_0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "blueprints_resources"
BY_KEY = "ix_blueprints_resources_by_key"
BY_RESOURCE = "ix_blueprints_resources_by_resource"
RESOURCE_COLUMNS = ["blueprint_name", "resource_type", "resource_id"]
HAS_RESOURCE = sa.text("resource_type <> ''")


def upgrade() -> None:
    op.drop_index(BY_KEY, table_name=TABLE)
    op.drop_index(BY_RESOURCE, table_name=TABLE)
    op.create_index(
        BY_RESOURCE, TABLE, RESOURCE_COLUMNS, postgresql_where=HAS_RESOURCE, sqlite_where=HAS_RESOURCE
    )


def downgrade() -> None:
    op.drop_index(BY_RESOURCE, table_name=TABLE)
    op.create_index(BY_RESOURCE, TABLE, RESOURCE_COLUMNS)
    op.create_index(BY_KEY, TABLE, ["blueprint_name", "blueprint_version", "resolution_key"])
