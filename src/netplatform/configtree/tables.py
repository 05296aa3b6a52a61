"""The config tree's tables: one row per top-level container, one row per entry of its lists.

Each entry of a list directly under a top-level container (each allotted resource) is a row of
its own, so a write to one entry never reads or rewrites another, and writers to different
entries only meet on their own rows. The container row holds the container's other members
(none in this model) and records that the container exists.
"""

from __future__ import annotations

import sqlalchemy as sa

from ..store.db import new_metadata
from ..store.generations import changes_table, generations_table

metadata = new_metadata()

Identifier = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""An auto-incrementing id on both databases (SQLite only auto-increments INTEGER keys)."""

containers = sa.Table(
    "configtree_containers",
    metadata,
    sa.Column("name", sa.String(255), primary_key=True, comment="module:container"),
    sa.Column("document", sa.Text(), nullable=False, comment="RFC 7951 JSON of its unsharded members"),
)

entries = sa.Table(
    "configtree_entries",
    metadata,
    sa.Column("id", Identifier, primary_key=True, autoincrement=True),
    sa.Column("container", sa.String(255), nullable=False, comment="module:container"),
    sa.Column("list", sa.String(255), nullable=False, comment="instance name of the list"),
    sa.Column("key_digest", sa.String(64), nullable=False, comment="sha256 of key_text"),
    sa.Column("key_text", sa.Text(), nullable=False, comment="JSON array of the entry's key values"),
    sa.Column("document", sa.Text(), nullable=False, comment="RFC 7951 JSON of the entry"),
    sa.UniqueConstraint("container", "list", "key_digest"),
)


generations = generations_table("configtree_generations", metadata)
"""One row, scope :data:`TREE_SCOPE`, moved on by the database itself on every write to a table
of :data:`TREE_TABLES` (triggers created by this service's generations migration).
GET answers of the tree are replayed while it stands (:mod:`netplatform.web.replay`)."""

TREE_SCOPE = "tree"
TREE_TABLES = (
    "configtree_containers",
    "configtree_entries",
)

changes = changes_table("configtree_changes", metadata)
"""The tree's change log (migration configtree_0003): each write to an entry records its key
(:func:`.repository.entry_object`), a container's write NULL (every object)."""
