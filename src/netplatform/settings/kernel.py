"""The kernel's settings: listeners, storage, security, logging, request limits; and the names of
what ``netplatform serve`` runs."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Self
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .users import DEFAULT_USERS, WELL_KNOWN_PASSWORDS, parse_user_entries, parse_users

# The API services: each has a database branch, Basic credentials on its routes and an OpenAPI document.
SERVICE_NAMES: tuple[str, ...] = (
    "blueprints",
    "distribution",
    "bus",
    "policy",
    "configtree",
    "router",
    "authz",
)
# Everything ``netplatform serve`` starts, each on its own port: the API services and the console
# (a client of their public APIs, with a sign-in of its own).
SERVED_NAMES: tuple[str, ...] = (*SERVICE_NAMES, "console")


class KernelSettings(BaseSettings):
    """What every service's process shares."""

    model_config = SettingsConfigDict(env_prefix="NETPLATFORM_", extra="ignore")

    # --- listeners -------------------------------------------------------------------------
    host: str = "127.0.0.1"
    blueprints_port: int = Field(8081, ge=0, le=65535)
    distribution_port: int = Field(8082, ge=0, le=65535)
    bus_port: int = Field(8083, ge=0, le=65535)
    policy_port: int = Field(8084, ge=0, le=65535)
    configtree_port: int = Field(8085, ge=0, le=65535)
    router_port: int = Field(8086, ge=0, le=65535)
    authz_port: int = Field(8087, ge=0, le=65535)
    console_port: int = Field(8080, ge=0, le=65535)
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
    # ``user:password[:role1|role2]``, comma-separated (see parse_user_entries for escapes).
    # Message-router ACL entries may name a role.
    users: str = DEFAULT_USERS
    # The platform key (store/secrets.py): Fernet keys, comma-separated, newest first. It seals the
    # secrets the platform presents again and derives the platform's own credentials. Unset: the
    # key file (default <data_dir>/secret.key, created with a new key on the first start).
    secret_key: SecretStr | None = None
    secret_key_file: Path | None = None
    # CA certificates the platform trusts on its own hops (a site following the central authz,
    # ...); unset: the system's.
    ca_bundle: Path | None = None
    # Sites (access/replica.py): a site whose authorization comes from a central authz service
    # follows its directory at this URL; it decides from its replica for authz_offline_s after
    # central last answered, then answers 503. It presents authz_user / authz_password there
    # (default: the platform identity svc.node). authz_poll_s: how long one long poll waits.
    authz_url: str | None = None
    # The one setting of an edge site (docs/operations.md "Sites"): the central site's
    # ``scheme://host``. Its services are reached at the ports this site has for them (every site
    # runs a service on the same port): authz_url defaults to ``<central_url>:<authz_port>``
    # (and distribution_central_url to ``<central_url>:<distribution_port>``) unless set.
    central_url: str | None = None
    authz_offline_s: float = Field(600.0, gt=0)
    authz_poll_s: float = Field(20.0, gt=0, le=30)
    authz_user: str | None = None
    authz_password: str | None = None
    # Failed authentications (docs/security.md "Authentication under attack"): per
    # ``auth_failure_window_s``, at most ``auth_failures_per_client`` failures of one identity
    # name from one address, ``auth_failures_per_address`` from one address whatever the names,
    # and ``auth_failures_per_name`` of one name from the addresses it has not signed in from;
    # past a bound, 429 with Retry-After. 0 turns a bound off.
    auth_failures_per_client: int = Field(10, ge=0)
    auth_failures_per_address: int = Field(100, ge=0)
    auth_failures_per_name: int = Field(100, ge=0)
    auth_failure_window_s: float = Field(300.0, gt=0)
    # Password checks (argon2: 64 MiB and tens of milliseconds each) run on this many threads per
    # process (0: half the cores, at least one), at most ``auth_check_queue`` more waiting;
    # beyond, 503 with Retry-After at once.
    auth_check_threads: int = Field(0, ge=0, le=64)
    auth_check_queue: int = Field(32, ge=0, le=10_000)
    # The reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: addresses or
    # networks, comma-separated ("*": any). Empty: none, the headers are ignored and the client
    # is the connection's peer (what endpoint_addrs and the throttle see).
    trusted_proxies: str = ""

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

    @model_validator(mode="after")
    def _tls_files_come_in_pairs(self) -> Self:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("NETPLATFORM_TLS_CERT and NETPLATFORM_TLS_KEY must be set together")
        return self

    @field_validator("central_url")
    @classmethod
    def _central_url_names_a_host(cls, value: str | None) -> str | None:
        return central_base(value) if value else None

    @model_validator(mode="after")
    def _follow_central(self) -> Self:
        if self.central_url and not self.authz_url:
            self.authz_url = f"{self.central_url}:{self.authz_port}"
        return self

    @model_validator(mode="after")
    def _name_the_instance(self) -> Self:
        if not self.instance_name:
            self.instance_name = f"{socket.gethostname()}-{self.distribution_port}"
        return self

    @field_validator("users")
    @classmethod
    def _users_well_formed(cls, value: str) -> str:
        parse_users(value)
        return value

    @property
    def user_table(self) -> dict[str, str]:
        return parse_users(self.users)

    @property
    def role_table(self) -> dict[str, frozenset[str]]:
        """The roles of each user (users without roles are absent)."""
        return {name: entry.roles for name, entry in parse_user_entries(self.users).items() if entry.roles}

    @property
    def uses_default_users(self) -> bool:
        return self.user_table == parse_users(DEFAULT_USERS)

    @property
    def administrator_password_is_default(self) -> bool:
        """Whether the bootstrap administrator's password is one a guesser tries first."""
        name, password = self.first_user()
        folded = password.strip().lower()
        return folded in WELL_KNOWN_PASSWORDS or folded == name.strip().lower()

    @property
    def trusted_proxy_list(self) -> list[str]:
        """NETPLATFORM_TRUSTED_PROXIES as a list (empty: no proxy is believed)."""
        return [entry.strip() for entry in self.trusted_proxies.split(",") if entry.strip()]

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "netplatform.db"

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.sqlite_path.resolve()}"

    @property
    def effective_secret_key_file(self) -> Path:
        return self.secret_key_file or self.data_dir / "secret.key"

    @property
    def blob_dir(self) -> Path:
        return self.data_dir / "blobs"

    def port_of(self, service: str) -> int:
        return int(getattr(self, f"{service}_port"))

    def first_user(self) -> tuple[str, str]:
        return next(iter(self.user_table.items()))


def central_base(url: str) -> str:
    """``scheme://host`` of NETPLATFORM_CENTRAL_URL; a port or a path is refused, since each
    service of the central site has a port of its own (the site's port for that service)."""
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(f"NETPLATFORM_CENTRAL_URL must be http(s)://host, not {url!r}")
    if port is not None or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(
            f"NETPLATFORM_CENTRAL_URL names the central host only (no port: each service is reached at "
            f"this site's port for it; set NETPLATFORM_AUTHZ_URL or NETPLATFORM_DISTRIBUTION_CENTRAL_URL "
            f"to name another), not {url!r}"
        )
    return f"{parts.scheme}://{parts.netloc}"
