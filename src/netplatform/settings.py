"""One settings object for the whole process, read from ``NETPLATFORM_*`` environment variables.

Every service reads the same object, so a deployment is configured in one place. Each field's
environment name is its upper-cased name with the ``NETPLATFORM_`` prefix
(``delivery_retry_initial_s`` -> ``NETPLATFORM_DELIVERY_RETRY_INITIAL_S``).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_USERS = "admin:admin"
# Passwords a guesser tries first (the administrator's own name is one too): the bootstrap
# administrator having one of them is warned of at every start.
WELL_KNOWN_PASSWORDS = frozenset(
    {
        "admin", "administrator", "password", "passw0rd", "changeme", "change-me", "secret",
        "default", "root", "toor", "admin123", "password1", "123456", "12345678", "123456789",
        "qwerty", "letmein", "welcome", "netplatform", "onap", "demo", "test",
    }
)  # fmt: skip

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
    # ``decompress`` subscriptions: the output of one file is bounded by bytes and by ratio to the
    # compressed size (outputs up to the ratio-free size always pass); an over-limit file is not
    # delivered to that subscription and its log says why.
    delivery_decompress_max_bytes: int = Field(1 << 30, gt=0)
    delivery_decompress_max_ratio: float = Field(100.0, gt=0)
    delivery_decompress_ratio_free_bytes: int = Field(1 << 20, ge=0)
    # How long a file delivered to a privileged subscriber waits for its acknowledgement before it
    # is offered again.
    delivery_privileged_reoffer_s: float = Field(300.0, gt=0)
    # Spool space: while the filesystem of the blob directory has less than
    # ``delivery_spool_min_free_bytes`` free, a publish is refused (503) and, checked every
    # ``delivery_spool_check_s``, this node's oldest spooled files are expired (``diskFull``)
    # until it has that much again. 0 turns the floor off.
    delivery_spool_min_free_bytes: int = Field(256 << 20, ge=0)
    delivery_spool_check_s: float = Field(10.0, gt=0)
    # Log retention: every ``distribution_log_prune_interval_s`` each instance deletes log records
    # older than ``distribution_log_max_age_s`` and, per feed, all but the newest
    # ``distribution_log_max_records_per_feed``. 0 turns a bound off.
    distribution_log_max_age_s: float = Field(30 * 86400.0, ge=0)
    distribution_log_max_records_per_feed: int = Field(1_000_000, ge=0)
    distribution_log_prune_interval_s: float = Field(300.0, gt=0)
    # Nodes per site (spec 1.3): every instance running distribution is a node of ``site``,
    # reached by other nodes and publishers at ``node_url`` (default: scheme://host:port of its
    # distribution listener). A node whose heartbeat is older than ``node_down_after_s`` is down.
    site: str = "default"
    node_url: str | None = None
    node_heartbeat_s: float = Field(5.0, gt=0)
    node_down_after_s: float = Field(30.0, gt=0)
    # The identity a node presents to other nodes when it forwards a file (PUT /internal/forward):
    # it needs the platform.node role there. Default: the platform's own svc.node, whose password
    # is derived from the platform key (so every node holding the key presents and accepts it);
    # set these only where the nodes do not share the key (docs/distribution.md). Set both or
    # neither.
    node_user: str | None = None
    node_password: str | None = None
    # Sites on their own stores (distribution/sites/): an edge node follows the provisioning
    # (feeds, subscriptions, routes, nodes) of the central site's distribution service at
    # ``distribution_central_url`` (long polls of ``distribution_central_poll_s``), refuses
    # provisioning writes (409 naming central) and ships its log records there every
    # ``distribution_log_ship_s``. Unset: this node is central (or shares its database).
    distribution_central_url: str | None = None
    distribution_central_poll_s: float = Field(10.0, gt=0, le=30)
    distribution_log_ship_s: float = Field(1.0, gt=0)
    # The authorization framework for feeds (reference authz 4): feed creation then requires
    # X-EXCLUDE-AUTHZ, and a feed created with ``X-EXCLUDE-AUTHZ: false`` is governed by the
    # platform.distribution.feed permissions of its authz_instance instead of the owner rule and
    # its endpoint ids.
    distribution_authz: bool = False

    # --- bus controller ----------------------------------------------------------------------
    # The bus controller presents its own identity, svc.bus (access/platform.py: a credential
    # derived from the platform key, role platform.bus), to the file-distribution service, the
    # message routers and the authz service; never a person's password. Where a service does not
    # share the key, set that hop's user and password (both or neither) to an identity holding
    # platform.bus there.
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
    # The message routers of its clusters: the credential (default svc.bus's), the timeout of each
    # call, and how often a background pass retries what a router did not accept and verifies
    # what it did (docs/bus.md, "The background reconcile").
    bus_router_user: str | None = None
    bus_router_password: str | None = None
    bus_router_timeout_s: float = Field(10.0, gt=0)
    bus_reconcile_s: float = Field(60.0, gt=0)
    # The identity the routers' mirror agents publish copies as (NETPLATFORM_ROUTER_MIRROR_USER on
    # the target routers); the bus grants it, as an identity, producer on every topic of a bridge
    # it provisions. Default: the router setting, else svc.mirror.
    bus_mirror_identity: str | None = None
    # The authz service in which the bus controller creates each topic's publisher and subscriber
    # roles and makes a client's identity a member of them (default: this process's own,
    # http(s)://<host>:<authz_port>), the credential it presents there (default svc.bus's) and
    # the timeout of each call.
    bus_authz_url: str | None = None
    bus_authz_user: str | None = None
    bus_authz_password: str | None = None
    bus_authz_timeout_s: float = Field(10.0, gt=0)
    # The deployment's own CA (PEM), trusted besides the system's when the bus calls HTTPS
    # services (distribution, routers, authz); their certificates are always verified.
    bus_ca_bundle: Path | None = None

    @model_validator(mode="after")
    def _tls_files_come_in_pairs(self) -> Settings:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("NETPLATFORM_TLS_CERT and NETPLATFORM_TLS_KEY must be set together")
        return self

    @model_validator(mode="after")
    def _retry_pause_grows_to_its_maximum(self) -> Settings:
        # A first pause longer than the longest would be silently cut to the longest (the
        # backoff is min(max, ...)): a setting that does not do what it says is refused instead.
        if self.delivery_retry_initial_s > self.delivery_retry_max_s:
            raise ValueError(
                "NETPLATFORM_DELIVERY_RETRY_INITIAL_S must not exceed NETPLATFORM_DELIVERY_RETRY_MAX_S"
            )
        return self

    @model_validator(mode="after")
    def _name_the_instance(self) -> Settings:
        if not self.instance_name:
            self.instance_name = f"{socket.gethostname()}-{self.distribution_port}"
        return self

    # --- blueprint execution ----------------------------------------------------------------
    # How long execution audit records are kept (GET /api/v1/workflow/audit-status).
    execution_audit_retention_s: float = Field(30 * 86400.0, gt=0)
    # REST endpoints resolution's source-rest entries may read, ``selector=url`` comma-separated
    # (Basic credentials as the URL's user-info); a CBA names a selector, never a host.
    execution_rest_sources: str = ""
    # The ``sdnc`` selector: the config tree (default this process's own, http(s)://<host>:
    # <configtree_port>) and the credentials presented there (default the platform identity
    # svc.execution, which may only act for a run's caller: access/platform.py).
    execution_sdnc_url: str | None = None
    execution_sdnc_user: str | None = None
    execution_sdnc_password: str | None = None
    execution_rest_timeout_s: float = Field(10.0, gt=0)
    # Async executions run by this many workers of each instance.
    execution_async_workers: int = Field(4, ge=1, le=64)
    # Templates render in child processes (at most this many at once), each limited to this many
    # MiB above what it starts with; one that overruns its step's time is killed.
    execution_render_workers: int = Field(2, ge=1, le=64)
    execution_render_memory_mb: int = Field(512, ge=16)
    # Runs (sync runs, and async ones being accepted) use threads of their own, never the ones the
    # other services share: at most ``execution_workers`` at once per instance. A run that finds
    # them busy waits, at most ``execution_queue`` of them at once and each at most
    # ``execution_queue_wait_s``; beyond either it is refused with 503 and Retry-After. The same
    # queue bounds the async runs accepted and not yet started.
    execution_workers: int = Field(4, ge=1, le=256)
    execution_queue: int = Field(128, ge=0, le=100_000)
    execution_queue_wait_s: float = Field(5.0, gt=0, le=600)
    # An ExecutionServiceInput is at most this many bytes (413 beyond) and nests at most this
    # many arrays and objects deep (400 beyond).
    execution_max_body_bytes: int = Field(1024 * 1024, ge=1024)
    execution_max_body_depth: int = Field(64, ge=8, le=256)
    # What the expressions of one operation's inputs (or of a workflow's outputs) may expand to
    # (dsl_definitions, get_property, get_input, get_attribute): values and bytes, refused at
    # save when the CBA alone exceeds them, and at run before they are built.
    execution_max_expansion_values: int = Field(100_000, ge=100)
    execution_max_expansion_bytes: int = Field(16 * 1024 * 1024, ge=1024)
    # Render time the CBA cannot raise (its step's timeout can only shorten it): one template
    # renders for at most ``..._TEMPLATE_S``, the templates of one step together for at most
    # ``..._STEP_S``. One blueprint's runs hold at most ``..._WORKERS_PER_BLUEPRINT`` renderers at
    # once (0: half of them, at least one), so the others' runs always find one.
    execution_render_template_s: float = Field(10.0, gt=0, le=3600)
    execution_render_step_s: float = Field(60.0, gt=0, le=86400)
    execution_render_workers_per_blueprint: int = Field(0, ge=0, le=64)
    # Config deploy (component-netconf-executor): at most this many devices talked to at once
    # by each instance, over every run; one device is never deployed to twice at once.
    deploy_concurrency: int = Field(8, ge=1, le=256)

    # --- console ---------------------------------------------------------------------------------
    # Base URLs of the services the console is a client of, ``name=url`` comma-separated
    # (e.g. ``policy=https://policy.example:8084``); a service not named is this process's own
    # (``http(s)://<host>:<its port>``).
    console_api_urls: str = ""
    # Signs session cookies; default: a random key per process (sessions end with a restart).
    console_secret: str | None = None

    # --- message router ------------------------------------------------------------------------
    # Unset: the embedded engine in the project's database; nats://host:port: NATS JetStream.
    router_nats_url: str | None = None
    router_retention_s: float = Field(7 * 86400.0, gt=0)
    # Identities (never roles) that administer every router topic besides the holders of
    # platform.router.admin|topics|write (svc.bus, platform.admin): they grant, revoke and delete
    # on every topic, publish to the bridge-admin topic and set the mirror settings;
    # comma-separated, default none. A role is made an administrator by granting it that permission.
    router_admins: str = ""
    # How often a waiting fetch looks for messages other instances published (same process: at once).
    router_poll_ms: int = Field(250, ge=10, le=10_000)
    # The largest message a publish may carry, in UTF-8 bytes (413 beyond), on either engine.
    # With JetStream it is lowered, with a warning, to the server's max_payload when that is less.
    router_max_message_bytes: int = Field(1024 * 1024, ge=1)
    # Mirror agents: how long one fetch from a source router waits, and the pause after a failure.
    router_mirror_poll_ms: int = Field(2000, ge=0)
    router_mirror_retry_s: float = Field(2.0, gt=0)
    # An override of the bridge-admin topic the router's mirror agents are defined on, which the
    # bus controller normally tells the router (its settings' bridgeAdminTopic, stored in the
    # router's database); "": the stored one (none stored: no mirror agents). The router makes
    # it; a topic of that name it did not make is never read.
    router_bridge_admin_topic: str = ""
    # Router base URLs (comma-separated) mirror agents may connect to besides those the bus
    # controller tells (its registered clusters' routers); an agent whose source is neither
    # connects nowhere.
    router_mirror_sources: str = ""
    # The credential mirror agents present to source routers, and the identity they publish as
    # here: by default svc.mirror's, derived from the platform key (the sources must share it);
    # set both for sources that do not, whose identity of that name holds platform.mirror there.
    router_mirror_user: str | None = None
    router_mirror_password: str | None = None
    # The deployment's own CA (PEM), trusted besides the system's when agents read HTTPS sources.
    router_mirror_ca_bundle: Path | None = None

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
    def router_admin_identities(self) -> frozenset[str]:
        """Identities that administer every router topic besides the router admin permission's holders."""
        return frozenset(part.strip() for part in self.router_admins.split(",") if part.strip())

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


@dataclass(frozen=True)
class UserEntry:
    name: str
    password: str
    roles: frozenset[str] = frozenset()


def parse_user_entries(spec: str) -> dict[str, UserEntry]:
    """Parse ``user:password[:role1|role2]`` entries, comma-separated.

    A backslash makes the next character literal, as in a PostgreSQL ``.pgpass`` file: a
    password holding ``:``, ``,`` or ``\\`` writes them ``\\:``, ``\\,`` and ``\\\\``. An
    unescaped second ``:`` starts the role list (``|``-separated); a third is an error.
    """
    users: dict[str, UserEntry] = {}
    for fields in _split_entries(spec):
        if len(fields) not in (2, 3) or not fields[0] or not fields[1]:
            raise ValueError(
                f"NETPLATFORM_USERS entry {fields[0]!r} must be written user:password[:role1|role2]"
                " (write ':' in a password as '\\:')"
            )
        listed = fields[2].split("|") if len(fields) == 3 else []
        roles = frozenset(role.strip() for role in listed if role.strip())
        users[fields[0]] = UserEntry(fields[0], fields[1], roles)
    if not users:
        raise ValueError("NETPLATFORM_USERS must name at least one user:password pair")
    return users


def _split_entries(spec: str) -> list[list[str]]:
    """Entries split at unescaped ``,``, their fields at unescaped ``:``; escapes removed.

    Blanks around an entry are dropped (``a:1, b:2``); blank entries are skipped.
    """
    entries: list[list[str]] = []
    fields: list[str] = []
    current: list[str] = []
    escaped = False

    def end_entry() -> None:
        fields.append("".join(current).rstrip())
        if any(fields):
            entries.append([fields[0].strip(), *fields[1:]])

    for char in spec:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            fields.append("".join(current))
            current = []
        elif char == ",":
            end_entry()
            fields, current = [], []
        else:
            current.append(char)
    if escaped:
        raise ValueError("NETPLATFORM_USERS ends with a lone '\\'")
    end_entry()
    return entries


def parse_users(spec: str) -> dict[str, str]:
    """The password of each user of a NETPLATFORM_USERS value."""
    return {name: entry.password for name, entry in parse_user_entries(spec).items()}
