"""Identities: the stored ones (``/authn/cred``) beside the configured ones (NETPLATFORM_USERS).

A configured identity is configuration: it cannot be created, changed or deleted here (an entry
of NETPLATFORM_USERS wins over a stored identity of the same name). A stored one's password is
kept only as an argon2id hash, computed before the write transaction opens (it takes tens of
milliseconds, and SQLite has one writer at a time).
"""

from __future__ import annotations

from ..access.bootstrap import ConfiguredIdentities
from ..access.credentials import Credentials
from ..access.directory import AccessDirectory
from ..access.passwords import hash_password
from ..access.repository import AccessRepository
from ..clock import now_ms
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .bounds import Bounds
from .errors import bad_request, exists, not_found, refused
from .schemas import IdentityEntry

CONFIGURED_RULE = "is configured in NETPLATFORM_USERS: change it there, not through the API"


def identity_known(
    access: AccessRepository, configured: ConfiguredIdentities, identity: str, *, lock: bool = False
) -> bool:
    """Whether ``identity`` exists, configured or stored (``lock``: see AccessRepository.identity_exists)."""
    return identity in configured or access.identity_exists(identity, lock=lock)


class Identities:
    def __init__(self, db: Database, access: AccessDirectory) -> None:
        self.unit = UnitOfWork(db, AccessRepository)
        self.access = access
        self.configured = access.configured
        self.bounds = Bounds(access.configured)

    def every(self) -> list[IdentityEntry]:
        """The configured identities (in their configured order), then the stored ones."""
        stored = self.unit.read(lambda access: access.identity_ids())
        entries = [IdentityEntry(id=name, configured=True) for name in self.configured.roles]
        entries += [
            IdentityEntry(id=name, configured=False) for name in stored if name not in self.configured
        ]
        return entries

    def create(self, identity: str, password: str) -> None:
        if identity in self.configured:
            raise exists(f"Identity {identity} exists: it {CONFIGURED_RULE}", "id")
        encoded = hash_password(password)

        def work(access: AccessRepository) -> None:
            if access.identity_exists(identity):
                raise exists(f"Identity {identity} exists", "id")
            access.insert_identity(identity, encoded, now_ms())

        self.unit.write(work)

    def change_password(self, identity: str, password: str, named: str | None, caller: str) -> None:
        """Replace a stored identity's password, ``caller`` holding every permission it holds."""
        if named is not None and named != identity:
            raise bad_request(f"The body names identity {named}, the path {identity}", "id")
        self._refuse_configured(identity, "its password cannot be changed")
        encoded = hash_password(password)

        def work(access: AccessRepository) -> None:
            # Its row stays locked: no membership is added to it between the check and the change.
            if not access.identity_exists(identity, lock=True):
                raise not_found("identity", identity, "id")
            self.bounds.identity(access, caller, identity, "change the password of")
            access.update_password(identity, encoded)

        self.unit.write(work, retry=False)

    def delete(self, identity: str, caller: str) -> None:
        """Delete a stored identity and its memberships, ``caller`` holding every permission it holds."""
        self._refuse_configured(identity, "it cannot be deleted")

        def work(access: AccessRepository) -> None:
            if not access.identity_exists(identity, lock=True):
                raise not_found("identity", identity, "id")
            self.bounds.identity(access, caller, identity, "delete")
            access.delete_identity(identity)

        self.unit.write(work, retry=False)

    async def validate(self, identity: str, password: str, client: str | None) -> bool:
        """Whether the credentials are valid, checked as the kernel checks a request's: through
        the throttle of failed attempts and the bounded pool, one argon2 verification whatever
        the name (configured entries first: they win)."""
        return await self.access.check(Credentials(identity, password), client) is not None

    def _refuse_configured(self, identity: str, what: str) -> None:
        if identity in self.configured:
            raise refused(f"Identity {identity} {CONFIGURED_RULE}; {what}")
