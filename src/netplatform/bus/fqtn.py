"""Fully qualified topic names (reference 6.1)."""

from __future__ import annotations

from dataclasses import dataclass

from .schemas import FqtnStyle

EMPTY_PROJECT_ID = "90909"
"""The project id of the fqtn when the configured one is empty (its default is the setting's)."""
DEFAULT_VERSION = "v1"


@dataclass(frozen=True)
class Naming:
    """What the fqtn depends on besides the topic: the bus settings and service settings."""

    topic_ns_root: str
    bus_name: str
    project_id: str
    default_style: str


def resolve_style(style: str | None, naming: Naming) -> str:
    """An absent or NOT_SPECIFIED style takes the configured default (LEGACY unless set)."""
    if style in (None, FqtnStyle.FQTN_NOT_SPECIFIED.value):
        configured = naming.default_style
        known = {member.value for member in FqtnStyle} - {FqtnStyle.FQTN_NOT_SPECIFIED.value}
        return configured if configured in known else FqtnStyle.FQTN_LEGACY_FORMAT.value
    return style


def build_fqtn(topic_name: str, style: str, version: str | None, naming: Naming) -> str:
    """A name with a dot is already fully qualified; otherwise the style's rule applies."""
    if "." in topic_name:
        return topic_name
    prefix = f"{naming.topic_ns_root}.{naming.bus_name}"
    project = naming.project_id.replace(".", "_") or EMPTY_PROJECT_ID
    if style == FqtnStyle.FQTN_PROJECTID_FORMAT.value:
        return f"{prefix}.{project}-{topic_name}"
    if style == FqtnStyle.FQTN_PROJECTID_VERSION_FORMAT.value:
        suffix = (version or "").replace(".", "_") or DEFAULT_VERSION
        return f"{prefix}.{project}-{topic_name}-{suffix}"
    return f"{prefix}.{topic_name}"
