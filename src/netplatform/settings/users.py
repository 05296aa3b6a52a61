"""``NETPLATFORM_USERS``: the configured identities, ``user:password[:role1|role2]`` entries."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_USERS = "admin:admin"
# Passwords a guesser tries first (the administrator's own name is one too): the bootstrap
# administrator having one of them is warned of at every start.
WELL_KNOWN_PASSWORDS = frozenset(
    {
        "admin", "administrator", "password", "passw0rd", "changeme", "change-me", "secret",
        "default", "root", "toor", "admin123", "password1", "123456", "12345678", "123456789",
        "qwerty", "letmein", "welcome", "netplatform", "onap", "demo", "test",
    }
)  # fmt: skip


@dataclass(frozen=True)
class UserEntry:
    name: str
    password: str
    roles: frozenset[str] = frozenset()


def parse_user_entries(spec: str) -> dict[str, UserEntry]:
    """Parse ``user:password[:role1|role2]`` entries, comma-separated.

    A backslash makes the next character literal, as in a PostgreSQL ``.pgpass`` file: a
    password holding ``:``, ``,`` or ``\\`` writes them ``\\:``, ``\\,`` and ``\\\\``. An
    unescaped second ``:`` starts the role list (``|``-separated); a third is an error.
    """
    users: dict[str, UserEntry] = {}
    for fields in _split_entries(spec):
        if len(fields) not in (2, 3) or not fields[0] or not fields[1]:
            raise ValueError(
                f"NETPLATFORM_USERS entry {fields[0]!r} must be written user:password[:role1|role2]"
                " (write ':' in a password as '\\:')"
            )
        listed = fields[2].split("|") if len(fields) == 3 else []
        roles = frozenset(role.strip() for role in listed if role.strip())
        users[fields[0]] = UserEntry(fields[0], fields[1], roles)
    if not users:
        raise ValueError("NETPLATFORM_USERS must name at least one user:password pair")
    return users


def _split_entries(spec: str) -> list[list[str]]:
    """Entries split at unescaped ``,``, their fields at unescaped ``:``; escapes removed.

    Blanks around an entry are dropped (``a:1, b:2``); blank entries are skipped.
    """
    entries: list[list[str]] = []
    fields: list[str] = []
    current: list[str] = []
    escaped = False

    def end_entry() -> None:
        fields.append("".join(current).rstrip())
        if any(fields):
            entries.append([fields[0].strip(), *fields[1:]])

    for char in spec:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            fields.append("".join(current))
            current = []
        elif char == ",":
            end_entry()
            fields, current = [], []
        else:
            current.append(char)
    if escaped:
        raise ValueError("NETPLATFORM_USERS ends with a lone '\\'")
    end_entry()
    return entries


def parse_users(spec: str) -> dict[str, str]:
    """The password of each user of a NETPLATFORM_USERS value."""
    return {name: entry.password for name, entry in parse_user_entries(spec).items()}
