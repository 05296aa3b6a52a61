"""The blueprint catalog's settings: archive bounds, execution, config deploy."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class BlueprintsSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NETPLATFORM_", extra="ignore")

    archive_max_bytes: int = 64 * 1024 * 1024
    archive_max_uncompressed_bytes: int = 256 * 1024 * 1024
    archive_max_ratio: int = 200
    archive_max_entries: int = 10_000

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
    # A deploy that ended cleanly keeps its NETCONF session open for the next deploy to the same
    # device (same inventory entry) for this many seconds; 0 opens and closes one per deploy.
    deploy_session_idle_s: float = Field(60.0, ge=0, le=86400)
