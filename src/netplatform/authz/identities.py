"""Identities: the stored ones (``/authn/cred``) beside the configured ones (NETPLATFORM_USERS).

A configured identity is configuration: it cannot be created, changed or deleted here (an entry
of NETPLATFORM_USERS wins over a stored identity of the same name). A stored one's password is
kept only as an argon2id hash, computed before the write transaction opens (it takes tens of
milliseconds, and SQLite has one writer at a time).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..access import queries
from ..access.bootstrap import ConfiguredIdentities
from ..access.passwords import hash_password, verify_password
from ..clock import now_ms
from ..store.db import Database
from ..store.retry import write_with_retry
from ..web.auth import Credentials
from .errors import bad_request, exists, not_found, refused
from .schemas import IdentityEntry

CONFIGURED_RULE = "is configured in NETPLATFORM_USERS: change it there, not through the API"


def identity_known(
    session: Session, configured: ConfiguredIdentities, identity: str, *, lock: bool = False
) -> bool:
    """Whether ``identity`` exists, configured or stored (``lock``: see queries.identity_exists)."""
    return identity in configured or queries.identity_exists(session, identity, lock=lock)


class Identities:
    def __init__(self, db: Database, configured: ConfiguredIdentities) -> None:
        self.db = db
        self.configured = configured

    def every(self) -> list[IdentityEntry]:
        """The configured identities (in their configured order), then the stored ones."""
        with self.db.read() as session:
            stored = queries.identity_ids(session)
        entries = [IdentityEntry(id=name, configured=True) for name in self.configured.roles]
        entries += [
            IdentityEntry(id=name, configured=False) for name in stored if name not in self.configured
        ]
        return entries

    def create(self, identity: str, password: str) -> None:
        if identity in self.configured:
            raise exists(f"Identity {identity} exists: it {CONFIGURED_RULE}", "id")
        encoded = hash_password(password)

        def work(session: Session) -> None:
            if queries.identity_exists(session, identity):
                raise exists(f"Identity {identity} exists", "id")
            queries.insert_identity(session, identity, encoded, now_ms())

        write_with_retry(self.db, work)

    def change_password(self, identity: str, password: str, named: str | None) -> None:
        if named is not None and named != identity:
            raise bad_request(f"The body names identity {named}, the path {identity}", "id")
        self._refuse_configured(identity, "its password cannot be changed")
        encoded = hash_password(password)
        with self.db.write() as session:
            if not queries.update_password(session, identity, encoded):
                raise not_found("identity", identity, "id")

    def delete(self, identity: str) -> None:
        """Delete a stored identity and its memberships."""
        self._refuse_configured(identity, "it cannot be deleted")
        with self.db.write() as session:
            if not queries.delete_identity(session, identity):
                raise not_found("identity", identity, "id")

    def validate(self, identity: str, password: str) -> bool:
        """Whether the credentials are valid (configured entries first: they win). Verifying a
        stored hash takes tens of milliseconds: call from a worker thread."""
        if identity in self.configured:
            return self.configured.authenticate(Credentials(identity, password)) is not None
        with self.db.read() as session:
            encoded = queries.password_hash(session, identity)
        # An unknown identity is verified against a stand-in hash: it costs what a wrong password does.
        return verify_password(encoded, password)

    def _refuse_configured(self, identity: str, what: str) -> None:
        if identity in self.configured:
            raise refused(f"Identity {identity} {CONFIGURED_RULE}; {what}")
