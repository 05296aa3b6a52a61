"""A topic's roles and who joins them (reference 6.2, 6.5; authz.md 3).

A topic under the namespace root has two roles, ``<fqtn>.publisher`` and ``<fqtn>.subscriber``,
created in the authz service and granted on the topic's routers (producer and consumer). A
client naming only a ``clientIdentity`` makes that identity a member of the role of each of its
``pub`` and ``sub`` actions; a ``clientRole`` is granted on the router instead (it takes
precedence). No I/O here.
"""

from __future__ import annotations

from collections.abc import Iterable

from .schemas import MrClient, Topic

Membership = tuple[str, str]
"""(identity, role)."""


def default_roles(fqtn: str, topic_ns_root: str) -> tuple[str | None, str | None]:
    """(publisherRole, subscriberRole): only for topics under the namespace root."""
    if not fqtn.startswith(topic_ns_root):
        return None, None
    return f"{fqtn}.publisher", f"{fqtn}.subscriber"


def topic_roles(topic: Topic) -> list[str]:
    """The topic's roles that exist (none for a topic outside the namespace root)."""
    return [role for role in (topic.publisherRole, topic.subscriberRole) if role]


def role_of_action(topic: Topic, action: str) -> str | None:
    """The topic's role an identity joins for ``action`` (``view`` joins none)."""
    if action == "pub":
        return topic.publisherRole
    if action == "sub":
        return topic.subscriberRole
    return None


def role_description(topic: Topic, role: str) -> str:
    kind = "publishers" if role == topic.publisherRole else "subscribers"
    return f"The {kind} of message-router topic {topic.fqtn} (created by the bus controller)"


def memberships_of(client: MrClient, topic: Topic) -> set[Membership]:
    """The memberships a client adds: its identity in the role of each of its actions, when it
    names no ``clientRole`` and the topic has that role."""
    identity = client.clientIdentity
    if client.clientRole or not identity:
        return set()
    found = (role_of_action(topic, action) for action in client.action or [])
    return {(identity, role) for role in found if role}


def memberships_needed(clients: Iterable[MrClient], topic: Topic) -> set[Membership]:
    needed: set[Membership] = set()
    for client in clients:
        needed |= memberships_of(client, topic)
    return needed
