"""The console's settings: where the services it is a client of are, its session key."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class ConsoleSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NETPLATFORM_", extra="ignore")

    # Base URLs of the services the console is a client of, ``name=url`` comma-separated
    # (e.g. ``policy=https://policy.example:8084``); a service not named is this process's own
    # (``http(s)://<host>:<its port>``).
    console_api_urls: str = ""
    # Signs session cookies; default: a random key per process (sessions end with a restart).
    console_secret: str | None = None
