"""The bus controller's settings: its calls to distribution, the routers and authz, its defaults."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class BusSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NETPLATFORM_", extra="ignore")

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
