"""distribution: feed endpoint passwords stored only as argon2id hashes; framework feeds

Every ``endpoint_ids`` entry ``{"id", "password"}`` becomes ``{"id", "password_hash"}``. A live
feed's passwords are hashed (argon2id, tens of milliseconds each on purpose: a deployment with
thousands of feeds spends minutes here, once). A deleted feed can never be published to again,
so its passwords are dropped instead (``!``, which matches no password).

``authz_framework``: the feed was created with ``X-EXCLUDE-AUTHZ: false`` while the framework was
on (docs/distribution.md "Authorization"); every existing feed is legacy.

The column is added in place (no table rebuild), so the generation triggers of migration
distribution_0004 on ``distribution_feeds`` stay; the rewritten rows move the generation.

The downgrade cannot give passwords back: it leaves each hash where the password was, so
publishers of the older version are refused until their feeds are provisioned again.

Revision ID: distribution_0005
Revises: distribution_0004
Create Date: 2026-11-28 00:00:00
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from netplatform.access.passwords import hash_password

revision: str = "distribution_0005"
down_revision: str | None = "distribution_0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOCKED = "!"

_feeds = sa.table(
    "distribution_feeds",
    sa.column("id", sa.Integer),
    sa.column("endpoint_ids", sa.JSON),
    sa.column("deleted", sa.Boolean),
)


def upgrade() -> None:
    op.add_column(
        "distribution_feeds",
        sa.Column("authz_framework", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    _rewrite_endpoints(_hashed_entry)


def downgrade() -> None:
    _rewrite_endpoints(_unhashed_entry)
    op.drop_column("distribution_feeds", "authz_framework")


def _rewrite_endpoints(convert: Any) -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(_feeds.c.id, _feeds.c.endpoint_ids, _feeds.c.deleted)).all()
    for feed_id, endpoints, deleted in rows:
        rewritten = [convert(entry, bool(deleted)) for entry in endpoints or []]
        bind.execute(sa.update(_feeds).where(_feeds.c.id == feed_id).values(endpoint_ids=rewritten))


def _hashed_entry(entry: dict[str, Any], deleted: bool) -> dict[str, str]:
    if "password_hash" in entry:  # already converted
        return {"id": entry["id"], "password_hash": entry["password_hash"]}
    # "!" is no argon2 hash: it verifies no password (as a locked account in /etc/shadow).
    hashed = LOCKED if deleted else hash_password(str(entry.get("password", "")))
    return {"id": entry["id"], "password_hash": hashed}


def _unhashed_entry(entry: dict[str, Any], deleted: bool) -> dict[str, str]:
    return {"id": entry["id"], "password": str(entry.get("password_hash", entry.get("password", "")))}
