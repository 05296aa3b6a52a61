"""The default roles of a topic (reference 6.2)."""

from __future__ import annotations


def default_roles(fqtn: str, topic_ns_root: str) -> tuple[str | None, str | None]:
    """(publisherRole, subscriberRole): only for topics under the namespace root."""
    if not fqtn.startswith(topic_ns_root):
        return None, None
    return f"{fqtn}.publisher", f"{fqtn}.subscriber"
