"""A topic as the control plane knows it: its description, owner, counts and two ACLs."""

from __future__ import annotations

from dataclasses import dataclass, field

from .tables import IDENTITY, ROLE

ROLE_PREFIX = "role:"
"""How a role is named where identities are too (a grant's path segment, an ACL's ``users``):
``role:<name>``. No identity can be named so: a Basic user name holds no ``:``."""


@dataclass(frozen=True, order=True)
class Principal:
    """What an ACL entry names: an identity or a role, never either (issue 36, point 5)."""

    kind: str  # IDENTITY or ROLE
    name: str

    @classmethod
    def parse(cls, text: str) -> Principal:
        """``role:<name>`` is a role, anything else an identity."""
        if text.startswith(ROLE_PREFIX):
            return cls(ROLE, text[len(ROLE_PREFIX) :])
        return cls(IDENTITY, text)

    @classmethod
    def identity(cls, name: str) -> Principal:
        return cls(IDENTITY, name)

    @classmethod
    def role(cls, name: str) -> Principal:
        return cls(ROLE, name)

    @property
    def wire(self) -> str:
        return ROLE_PREFIX + self.name if self.kind == ROLE else self.name


@dataclass(frozen=True)
class Acl:
    """Who may publish (writer ACL) or fetch (reader ACL).

    Enabled with its first grant and left enabled when revokes empty it, so a topic whose
    writers were all revoked is closed to writers rather than open again (issue 14).
    """

    enabled: bool = False
    entries: tuple[Principal, ...] = ()

    @property
    def users(self) -> list[str]:
        """The entries as the wire writes them, sorted: ``alice``, ``role:ops``."""
        return sorted(entry.wire for entry in self.entries)

    def admits(self, identity: str, roles: frozenset[str]) -> bool:
        """Disabled: everyone. Enabled: the identity named as an identity, or a holder of a role
        named as a role (an identity named like a role passes nothing by its name)."""
        if not self.enabled:
            return True
        return any(
            (entry.kind == IDENTITY and entry.name == identity)
            or (entry.kind == ROLE and entry.name in roles)
            for entry in self.entries
        )


@dataclass(frozen=True)
class Topic:
    name: str
    description: str
    owner: str
    txenabled: bool
    partition_count: int
    replication_count: int
    writer_acl: Acl = field(default_factory=Acl)
    reader_acl: Acl = field(default_factory=Acl)
    platform: bool = False  # made by the router for the platform: the bridge-admin topic
