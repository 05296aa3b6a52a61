"""One settings object for the whole process, read from ``NETPLATFORM_*`` environment variables.

Every service reads the same object, so a deployment is configured in one place. Each field's
environment name is its upper-cased name with the ``NETPLATFORM_`` prefix
(``delivery_retry_initial_s`` -> ``NETPLATFORM_DELIVERY_RETRY_INITIAL_S``).
"""

from __future__ import annotations

import socket
from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_USERS = "admin:admin"

SERVICE_NAMES: tuple[str, ...] = ("blueprints", "distribution", "bus", "policy", "configtree")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NETPLATFORM_", extra="ignore")

    # --- listeners -------------------------------------------------------------------------
    host: str = "127.0.0.1"
    blueprints_port: int = Field(8081, ge=0, le=65535)
    distribution_port: int = Field(8082, ge=0, le=65535)
    bus_port: int = Field(8083, ge=0, le=65535)
    policy_port: int = Field(8084, ge=0, le=65535)
    configtree_port: int = Field(8085, ge=0, le=65535)
    router_port: int = Field(8086, ge=0, le=65535)
    tls_cert: Path | None = None
    tls_key: Path | None = None
    graceful_shutdown_s: float = 30.0
    # Processes serving every port (``serve --workers``); each is an instance of its own.
    workers: int = Field(1, ge=1, le=64)

    # --- storage ---------------------------------------------------------------------------
    data_dir: Path = Path("var")
    database_url: str | None = None
    db_pool_size: int = 10

    # --- security --------------------------------------------------------------------------
    users: str = DEFAULT_USERS
    # Roles per user, ``alice=ops|audit,bob=ops`` (NETPLATFORM_USERS keeps ``user:password``
    # because a password may itself contain ``:``). Message-router ACL entries may name a role.
    user_roles: str = ""

    # --- logging and operations --------------------------------------------------------------
    log_level: str = "INFO"
    log_format: str = Field("text", pattern="^(text|json)$")
    access_log: bool = True
    # Names this instance in publish ids and delivery-queue claims; must be unique among running
    # instances and stable across restarts (a restarted instance frees its own stale claims).
    # Default: <host name>-<distribution port>, which two live processes can never share.
    instance_name: str = ""

    # --- request limits ----------------------------------------------------------------------
    max_body_bytes: int = 64 * 1024 * 1024

    # --- blueprint catalog -------------------------------------------------------------------
    archive_max_bytes: int = 64 * 1024 * 1024
    archive_max_uncompressed_bytes: int = 256 * 1024 * 1024
    archive_max_ratio: int = 200
    archive_max_entries: int = 10_000

    # --- file distribution -------------------------------------------------------------------
    # Base URL used in feed and subscription links; default: scheme://host:port of the request.
    distribution_public_url: str | None = None
    distribution_max_feeds: int = 10_000
    distribution_max_subscriptions: int = 100_000
    delivery_retry_initial_s: float = 10.0
    delivery_retry_max_s: float = 3600.0
    delivery_expiry_s: float = 86400.0
    delivery_ca_bundle: Path | None = None
    delivery_connect_timeout_s: float = 60.0
    delivery_read_timeout_s: float = 60.0
    delivery_workers: int = 8
    delivery_poll_s: float = 1.0
    delivery_lease_s: float = 300.0

    # --- bus controller ----------------------------------------------------------------------
    # Credentials the bus controller presents to the file-distribution service
    # (default: the first NETPLATFORM_USERS entry).
    bus_dr_user: str | None = None
    bus_dr_password: str | None = None
    bus_dr_subscriber: str = "busctl"
    bus_project_id: str = "99999"
    bus_topic_style: str = "FQTN_LEGACY_FORMAT"
    bus_global_host: str = "global.host.not.set"
    bus_central_cname: str | None = None
    bus_max_topics_per_bridge: int = 5
    bus_default_partition_count: str = "2"
    bus_default_replication_count: str = "1"
    bus_dr_timeout_s: float = 30.0

    @model_validator(mode="after")
    def _tls_files_come_in_pairs(self) -> Settings:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("NETPLATFORM_TLS_CERT and NETPLATFORM_TLS_KEY must be set together")
        return self

    @model_validator(mode="after")
    def _name_the_instance(self) -> Settings:
        if not self.instance_name:
            self.instance_name = f"{socket.gethostname()}-{self.distribution_port}"
        return self

    # --- message router ------------------------------------------------------------------------
    # Unset: the embedded engine in the project's database; nats://host:port: NATS JetStream.
    router_nats_url: str | None = None
    router_retention_s: float = Field(7 * 86400.0, gt=0)
    # Mirror agents: how long one fetch from a source router waits, and the pause after a failure.
    router_mirror_poll_ms: int = Field(2000, ge=0)
    router_mirror_retry_s: float = Field(2.0, gt=0)

    @field_validator("user_roles")
    @classmethod
    def _roles_well_formed(cls, value: str) -> str:
        parse_roles(value)
        return value

    @property
    def role_table(self) -> dict[str, frozenset[str]]:
        return parse_roles(self.user_roles)

    @field_validator("users")
    @classmethod
    def _users_well_formed(cls, value: str) -> str:
        parse_users(value)
        return value

    @property
    def user_table(self) -> dict[str, str]:
        return parse_users(self.users)

    @property
    def uses_default_users(self) -> bool:
        return self.user_table == parse_users(DEFAULT_USERS)

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "netplatform.db"

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.sqlite_path.resolve()}"

    @property
    def blob_dir(self) -> Path:
        return self.data_dir / "blobs"

    def port_of(self, service: str) -> int:
        return int(getattr(self, f"{service}_port"))

    def first_user(self) -> tuple[str, str]:
        return next(iter(self.user_table.items()))


def parse_users(spec: str) -> dict[str, str]:
    """Parse ``user:password,user2:password2`` (a password may contain ``:``, not ``,``)."""
    users: dict[str, str] = {}
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, password = item.partition(":")
        if not sep or not name or not password:
            raise ValueError(f"NETPLATFORM_USERS entry {name!r} must be written user:password")
        users[name] = password
    if not users:
        raise ValueError("NETPLATFORM_USERS must name at least one user:password pair")
    return users


def parse_roles(spec: str) -> dict[str, frozenset[str]]:
    """Parse ``user=role1|role2,user2=role3`` into the roles of each user."""
    roles: dict[str, frozenset[str]] = {}
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, listed = item.partition("=")
        names = frozenset(role.strip() for role in listed.split("|") if role.strip())
        if not sep or not name.strip() or not names:
            raise ValueError(f"NETPLATFORM_USER_ROLES entry {item!r} must be written user=role1|role2")
        roles[name.strip()] = roles.get(name.strip(), frozenset()) | names
    return roles
