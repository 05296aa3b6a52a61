"""The catalog's tables. Every name starts with ``blueprints_`` so no other service can collide.

Blueprint archives live in the blob store (``blueprints_blob_chunks`` on PostgreSQL, files in
the data directory on SQLite); ``blueprints_models`` holds their meta-data and the blob name,
and ``blueprints_model_keywords`` the comma-separated items of the searchable fields,
lower-cased, so a whole-keyword search is an index lookup rather than a scan. ``*_lower`` columns
hold lower-cased tag text for case-insensitive substring search on both databases.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    literal_column,
    text,
)

from ..store.database_blobs import blob_chunks_table
from ..store.db import new_metadata
from ..store.generations import generations_table

metadata = new_metadata()

NAME = 255

models = Table(
    "blueprints_models",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("artifact_name", String(NAME), nullable=False),
    Column("artifact_version", String(NAME), nullable=False),
    Column("artifact_type", String(64), nullable=False),
    Column("artifact_description", Text, nullable=False),
    Column("published", String(1), nullable=False),
    Column("updated_by", String(NAME), nullable=False),
    Column("tags", Text, nullable=False),
    Column("tags_lower", Text, nullable=False),
    Column("created_date", DateTime, nullable=False),
    Column("blob_name", String(32), nullable=False),
    Column("blob_size", BigInteger, nullable=False),
    Column("workflows", Text, nullable=False),
    UniqueConstraint("artifact_name", "artifact_version", name="uq_blueprints_models_name_version"),
    Index("ix_blueprints_models_created_date", "created_date", "id"),
    Index("ix_blueprints_models_artifact_version", "artifact_version", "id"),
    Index("ix_blueprints_models_published", "published"),
)

model_keywords = Table(
    "blueprints_model_keywords",
    metadata,
    Column(
        "model_id",
        String(36),
        ForeignKey("blueprints_models.id", ondelete="CASCADE", name="fk_blueprints_model_keywords_model"),
        primary_key=True,
    ),
    Column("keyword", String(1024), primary_key=True),
    Index("ix_blueprints_model_keywords_keyword", "keyword"),
)

model_types = Table(
    "blueprints_model_types",
    metadata,
    Column("name", String(NAME), primary_key=True),
    Column("derived_from", String(NAME), nullable=False),
    Column("definition_type", String(32), nullable=False),
    Column("definition", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("version", String(NAME), nullable=False),
    Column("tags", Text),
    Column("tags_lower", Text),
    Column("creation_date", DateTime, nullable=False),
    Column("updated_by", String(NAME), nullable=False),
    Index("ix_blueprints_model_types_definition_type", "definition_type"),
)

dictionaries = Table(
    "blueprints_dictionaries",
    metadata,
    Column("name", String(NAME), primary_key=True),
    Column("data_type", String(NAME), nullable=False),
    Column("entry_schema", String(NAME)),
    Column("dictionary_group", String(NAME), nullable=False),
    Column("definition", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("tags", Text, nullable=False),
    Column("tags_lower", Text, nullable=False),
    Column("creation_date", DateTime, nullable=False),
    Column("updated_by", String(NAME), nullable=False),
    Index("ix_blueprints_dictionaries_group", "dictionary_group"),
)

configs = Table(
    "blueprints_configs",
    metadata,
    # Insertion order: a replaced snapshot is re-inserted, so the highest seq is the newest.
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("id", String(36), nullable=False, unique=True),
    Column("resource_type", String(NAME), nullable=False),
    Column("resource_id", String(NAME), nullable=False),
    Column("status", String(16), nullable=False),
    Column("config_snapshot", Text, nullable=False),
    Column("created_date", DateTime, nullable=False),
    UniqueConstraint("resource_type", "resource_id", "status", name="uq_blueprints_configs_key"),
    Index("ix_blueprints_configs_resource_id", "resource_id"),
    Index("ix_blueprints_configs_resource_type", "resource_type"),
)

templates = Table(
    "blueprints_templates",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("blueprint_name", String(NAME), nullable=False),
    Column("blueprint_version", String(NAME), nullable=False),
    Column("artifact_name", String(NAME), nullable=False),
    Column("resolution_key", String(NAME), nullable=False),
    Column("resource_type", String(NAME), nullable=False),
    Column("resource_id", String(NAME), nullable=False),
    Column("occurrence", Integer, nullable=False),
    Column("result", Text, nullable=False),
    Column("created_date", DateTime, nullable=False),
    UniqueConstraint(
        "blueprint_name",
        "blueprint_version",
        "artifact_name",
        "resolution_key",
        "resource_type",
        "resource_id",
        "occurrence",
        name="uq_blueprints_templates_key",
    ),
)

resources = Table(
    "blueprints_resources",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("blueprint_name", String(NAME), nullable=False),
    Column("blueprint_version", String(NAME), nullable=False),
    Column("artifact_name", String(NAME), nullable=False),
    Column("name", String(NAME), nullable=False),
    Column("value", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("resolution_key", String(NAME), nullable=False),
    Column("resource_type", String(NAME), nullable=False),
    Column("resource_id", String(NAME), nullable=False),
    Column("occurrence", Integer, nullable=False),
    Column("dictionary_name", String(NAME)),
    Column("dictionary_source", String(NAME)),
    Column("dictionary_version", Integer),
    Column("created_date", DateTime, nullable=False),
    UniqueConstraint(
        "blueprint_name",
        "blueprint_version",
        "artifact_name",
        "resolution_key",
        "resource_type",
        "resource_id",
        "occurrence",
        "name",
        name="uq_blueprints_resources_key",
    ),
    # Lookups by resolution key name the artifact too: the unique key's index serves them. Values
    # stored by resolution key have an empty resource type, so only the others are indexed by
    # resource: the planner cannot take this index for a lookup by key (blueprints_0006). A
    # lookup by resource states HAS_RESOURCE, so that every planner sees it may use the index.
    Index(
        "ix_blueprints_resources_by_resource",
        "blueprint_name",
        "resource_type",
        "resource_id",
        postgresql_where=text("resource_type <> ''"),
        sqlite_where=text("resource_type <> ''"),
    ),
)
HAS_RESOURCE = resources.c.resource_type != literal_column("''")
"""The condition of the partial index by resource, as a lookup states it."""

executions = Table(
    "blueprints_executions",
    metadata,
    # The reference's audit id is a long: the insertion order.
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("request_id", String(NAME), nullable=False),
    Column("sub_request_id", String(NAME), nullable=False),
    Column("originator_id", String(NAME), nullable=False),
    Column("blueprint_name", String(NAME), nullable=False),
    Column("blueprint_version", String(NAME), nullable=False),
    Column("blueprint_uuid", String(36)),
    Column("workflow_name", String(NAME), nullable=False),
    Column("request_mode", String(8), nullable=False),
    Column("status", String(16), nullable=False),
    Column("request_content", Text, nullable=False),  # log-protect values masked
    Column("response_content", Text),
    Column("error_message", Text),
    Column("instance", String(NAME), nullable=False),
    Column("start_date", DateTime, nullable=False),
    Column("end_date", DateTime),
    Column("updated_date", DateTime, nullable=False),
    Index("ix_blueprints_executions_request", "request_id", "sub_request_id"),
    Index("ix_blueprints_executions_start_date", "start_date"),
    Index("ix_blueprints_executions_status_instance", "status", "instance"),
)
"""One row per execution (``GET /api/v1/workflow/audit-status``): written before it runs, completed
after; kept for NETPLATFORM_EXECUTION_AUDIT_RETENTION_S."""

devices = Table(
    "blueprints_devices",
    metadata,
    Column("name", String(NAME), primary_key=True),
    Column("host", String(NAME), nullable=False),
    Column("port", Integer, nullable=False),
    Column("username", String(NAME), nullable=False),
    Column("password", Text),  # sealed (store/secrets.py)
    Column("private_key", Text),  # sealed
    Column("host_key", Text),  # the pinned SSH host key, OpenSSH form ("ssh-ed25519 AAAA...")
    Column("connect_timeout_s", Float, nullable=False),
    Column("reply_timeout_s", Float, nullable=False),
    Column("site", String(NAME)),
    Column("created_date", DateTime, nullable=False),
    Column("updated_date", DateTime, nullable=False),
    Column("deploy_holder", String(64)),  # the lease of the deploy in progress, if any
    Column("deploy_until", DateTime),
)
"""The device inventory config deploy reaches (``/api/v1/devices``): a CBA names a device, never a
host or a credential. ``deploy_holder``/``deploy_until`` lease the device to one deploy at a
time across instances (a holder that died frees it when the lease ends)."""

device_deploys = Table(
    "blueprints_device_deploys",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("device", String(NAME), nullable=False),
    Column("mode", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("request_id", String(NAME), nullable=False),
    Column("sub_request_id", String(NAME), nullable=False),
    Column("blueprint_name", String(NAME), nullable=False),
    Column("blueprint_version", String(NAME), nullable=False),
    Column("datastore", String(16)),
    Column("sent", Text),
    Column("diff", Text),
    Column("before_config", Text),  # running before a successful deploy: what rollback restores
    Column("error_message", Text),
    Column("duration_ms", Integer, nullable=False),
    Column("start_date", DateTime, nullable=False),
    Index("ix_blueprints_device_deploys_device", "device", "id"),
    Index("ix_blueprints_device_deploys_request", "request_id", "sub_request_id"),
)
"""One row per device of each config-deploy step (deploy, check, rollback): what was sent, the
diff, the outcome (the console's executions page shows them). Rows outlive their device."""

SEALED_COLUMNS = (devices.c.password, devices.c.private_key)
"""Sealed with the platform key; ``netplatform secrets rotate`` seals them again."""

# The archives themselves on PostgreSQL (store/database_blobs.py); unused on SQLite.
blob_chunks = blob_chunks_table("blueprints_blob_chunks", metadata)


generations = generations_table("blueprints_generations", metadata)
"""One row, scope :data:`CATALOG_SCOPE`, moved on by the database itself on every write to a table
of :data:`CATALOG_TABLES` (triggers created by this service's generations migration).
GET answers of models, model types and dictionaries are replayed while it stands
(:mod:`netplatform.web.replay`). Configs, templates and resources are written by running
workflows and are not part of it."""

CATALOG_SCOPE = "catalog"
CATALOG_TABLES = (
    "blueprints_models",
    "blueprints_model_keywords",
    "blueprints_model_types",
    "blueprints_dictionaries",
)
