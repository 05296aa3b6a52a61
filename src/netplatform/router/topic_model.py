"""A topic as the control plane knows it: its description, owner, counts and two ACLs."""

from __future__ import annotations

from dataclasses import dataclass, field

from .engines.base import StreamSpec


@dataclass(frozen=True)
class Acl:
    """Who may publish (writer ACL) or fetch (reader ACL).

    Enabled with its first grant and left enabled when revokes empty it, so a topic whose
    writers were all revoked is closed to writers rather than open again (issue 14).
    """

    enabled: bool = False
    users: tuple[str, ...] = ()


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

    @property
    def stream(self) -> StreamSpec:
        return StreamSpec(self.name, partitions=self.partition_count, replicas=self.replication_count)
