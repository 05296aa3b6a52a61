"""The message router's settings: engine, retention, administrators, limits, mirror agents."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class RouterSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NETPLATFORM_", extra="ignore")

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

    @property
    def router_admin_identities(self) -> frozenset[str]:
        """Identities that administer every router topic besides the router admin permission's holders."""
        return frozenset(part.strip() for part in self.router_admins.split(",") if part.strip())
