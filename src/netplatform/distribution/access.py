"""Who is calling a provisioning route, and whether they may change a feed or subscription."""

from __future__ import annotations

from dataclasses import dataclass

from ..web.errors import BadRequest, Forbidden

MAX_IDENTITY_LENGTH = 8
ON_BEHALF_OF = "X-BUS-DR-ON-BEHALF-OF"
ON_BEHALF_OF_GROUP = "X-BUS-DR-ON-BEHALF-OF-GROUP"


@dataclass(frozen=True)
class Caller:
    """The identity in ``X-BUS-DR-ON-BEHALF-OF`` and the group of ``X-BUS-DR-ON-BEHALF-OF-GROUP``."""

    identity: str
    group: int = 0

    @classmethod
    def from_headers(cls, identity: str | None, group: str | None) -> Caller:
        if not identity:
            raise BadRequest(f"Missing {ON_BEHALF_OF} header.")
        if len(identity) > MAX_IDENTITY_LENGTH:
            raise BadRequest(f"{ON_BEHALF_OF} header too long")
        return cls(identity, _group_number(group))

    def may_manage(self, owner: str, groupid: int) -> bool:
        """The owner may; so may a caller naming the object's (positive) group."""
        return self.identity == owner or (self.group > 0 and self.group == groupid)

    def ensure_may_manage(self, owner: str, groupid: int) -> None:
        if not self.may_manage(owner, groupid):
            raise Forbidden("Policy Engine disallows access.")


def _group_number(text: str | None) -> int:
    """The group header as a number; absent or not a number means no group."""
    try:
        return int(text.strip()) if text else 0
    except ValueError:
        return 0
