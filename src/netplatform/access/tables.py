"""The authorization tables: identities, roles, their permissions and memberships.

Every write to them moves the ``access`` generation (triggers created by the authz migration),
which is how every instance's decision cache learns of a grant, revoke or membership change.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, PrimaryKeyConstraint, String, Table

from ..store.db import new_metadata
from ..store.generations import generations_table

metadata = new_metadata()

identities = Table(
    "authz_identities",
    metadata,
    Column("id", String(255), primary_key=True),
    # argon2id, salted (the encoded hash carries its parameters and salt); never the password.
    Column("password_hash", String(255), nullable=False),
    Column("created", BigInteger, nullable=False),
)

roles = Table(
    "authz_roles",
    metadata,
    Column("name", String(255), primary_key=True),
    Column("description", String(1024), nullable=False, default=""),
)

role_permissions = Table(
    "authz_role_permissions",
    metadata,
    Column("role", String(255), nullable=False),
    Column("type", String(255), nullable=False),
    Column("instance", String(255), nullable=False),
    Column("action", String(255), nullable=False),
    PrimaryKeyConstraint("role", "type", "instance", "action"),
)

memberships = Table(
    "authz_memberships",
    metadata,
    Column("identity", String(255), nullable=False),
    Column("role", String(255), nullable=False),
    # Epoch milliseconds after which the membership grants nothing; NULL: never.
    Column("expires", BigInteger, nullable=True),
    PrimaryKeyConstraint("identity", "role"),
    Index("ix_authz_memberships_role", "role"),
)

generations = generations_table("authz_generations", metadata)

# At a site that replicates its directory from another (access/replica.py): the source's URL,
# the source generation the rows here are a copy of, and when the source last answered (epoch
# ms). Not watched: following the source moves this site's generation only when rows change.
replica = Table(
    "authz_replica",
    metadata,
    Column("source", String(1024), primary_key=True),
    Column("generation", BigInteger, nullable=False),
    Column("synced", BigInteger, nullable=False),
)

GENERATION_SCOPE = "access"
WATCHED_TABLES = ("authz_identities", "authz_roles", "authz_role_permissions", "authz_memberships")

# The console's sign-outs (console/signouts.py): a signed-out session's id (as SHA-256, hex) until
# the session would have expired anyway, so a copy of its cookie stops working on every console
# instance and after a restart. Not watched: a sign-out changes no decision of the services.
console_signouts = Table(
    "console_signouts",
    metadata,
    Column("session", String(64), primary_key=True),
    Column("expires", BigInteger, nullable=False),
    Index("ix_console_signouts_expires", "expires"),
)

# The platform key this store's secrets are sealed with (access/key_check.py): one row, a known
# text sealed by the first instance that started on this store. An instance whose keys do not
# open it holds another key and would seal and open nothing the others can, so it refuses to start.
platform_key_check = Table(
    "platform_key_check",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("sealed", String(512), nullable=False),
)

SEALED_COLUMNS = (platform_key_check.c.sealed,)
