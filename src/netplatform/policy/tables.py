"""The policy service's tables: one row per entity, plus statistics counters, catalog loads and
the generation of the stored entities (read answers are cached per generation).

Entities of every kind share one table keyed by ``(kind, name, version)``; the columns beside
the JSON body are the few facts the rules query by (a type's parent, a policy's type, the
metadata set a policy names), each indexed, so no request loads more than the rows it needs.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Index,
    Integer,
    String,
    Table,
    UniqueConstraint,
)

from ..store.db import new_metadata
from ..store.generations import changes_table, generations_table

metadata = new_metadata()

entities = Table(
    "policy_entities",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(24), nullable=False),
    Column("name", String(120), nullable=False),
    Column("version", String(20), nullable=False),
    Column("parent_name", String(120), nullable=True),
    Column("type_name", String(120), nullable=True),
    Column("type_version", String(20), nullable=True),
    Column("metadata_set_name", String(120), nullable=True),
    Column("metadata_set_version", String(20), nullable=True),
    Column("preloaded", Boolean, nullable=False, default=False),
    Column("body", JSON, nullable=False),
    UniqueConstraint("kind", "name", "version"),
    Index("ix_policy_entities_parent", "kind", "parent_name"),
    Index("ix_policy_entities_type", "kind", "type_name", "type_version"),
    Index("ix_policy_entities_metadata_set", "metadata_set_name", "metadata_set_version"),
)

statistics = Table(
    "policy_statistics",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", BigInteger, nullable=False, default=0),
)

catalog_loads = Table(
    "policy_catalog_loads",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("loaded_at", DateTime(timezone=True), nullable=False),
)

generations = generations_table("policy_generations", metadata)
"""One row, scope :data:`ENTITIES_SCOPE`: moved on by every write of ``policy_entities``."""

ENTITIES_SCOPE = "entities"

changes = changes_table("policy_changes", metadata)
"""The entities' change log (migration policy_0003), written by the write funnel's ``bump``
(policy_store.py): the objects each group of writes changed."""


def policy_type_object(name: str) -> str:
    """The change-log key of the answers of one policy type (every version of ``name``)."""
    return f"policy type:{name}"


def policy_object(name: str) -> str:
    """The change-log key of one policy (every version of ``name``)."""
    return f"policy:{name}"
