"""File distribution's settings: feeds, deliveries, spool, logs, nodes and sites."""

from __future__ import annotations

from pathlib import Path
from typing import Self

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class DistributionSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NETPLATFORM_", extra="ignore")

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

    @model_validator(mode="after")
    def _retry_pause_grows_to_its_maximum(self) -> Self:
        # A first pause longer than the longest would be silently cut to the longest (the
        # backoff is min(max, ...)): a setting that does not do what it says is refused instead.
        if self.delivery_retry_initial_s > self.delivery_retry_max_s:
            raise ValueError(
                "NETPLATFORM_DELIVERY_RETRY_INITIAL_S must not exceed NETPLATFORM_DELIVERY_RETRY_MAX_S"
            )
        return self
