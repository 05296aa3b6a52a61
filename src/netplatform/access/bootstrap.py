"""The identities of ``NETPLATFORM_USERS``: who they are, how their credentials are checked, and
the roles they hold from the start.

The first entry is the bootstrap administrator (a member of ``platform.admin``); every other
entry holds exactly the roles it lists, and an entry without roles holds none. The platform's own
identities (access/platform.py) join them, each with its one role, unless an entry names them.
These identities are configuration, not rows: an entry wins over a stored identity of the same
name.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import Settings, parse_user_entries
from ..store.secrets import sealer_for
from .builtin import ADMIN_ROLE
from .credentials import Credentials, UserDirectory
from .platform import PLATFORM_IDENTITIES, accepted_passwords


@dataclass(frozen=True)
class ConfiguredIdentities:
    directory: UserDirectory
    roles: dict[str, frozenset[str]]
    administrator: str

    @classmethod
    def from_settings(cls, settings: Settings) -> ConfiguredIdentities:
        entries = parse_user_entries(settings.users)
        first = next(iter(entries))
        roles = {name: entry.roles for name, entry in entries.items()}
        roles[first] = roles[first] | {ADMIN_ROLE}
        users = [(name, entry.password) for name, entry in entries.items()]
        keys = sealer_for(settings).keys
        for identity in PLATFORM_IDENTITIES:
            if identity.name not in entries:  # an entry naming it replaces it
                roles[identity.name] = frozenset({identity.role})
                users.extend((identity.name, password) for password in accepted_passwords(keys, identity))
        return cls(UserDirectory(users), roles, first)

    def __contains__(self, name: object) -> bool:
        return name in self.roles

    def authenticate(self, credentials: Credentials) -> str | None:
        """Constant time over every configured entry (see :class:`UserDirectory`)."""
        return self.directory.authenticate(credentials)

    def roles_of(self, name: str) -> frozenset[str]:
        return self.roles.get(name, frozenset())

    def members_of(self, role: str) -> list[str]:
        return [name for name, held in self.roles.items() if role in held]
