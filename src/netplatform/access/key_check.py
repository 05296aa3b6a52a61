"""Every instance over one store holds the same platform key: checked when an instance starts.

The platform key (store/secrets.py) seals the secrets the platform must present again and
derives the platform identities' passwords. An instance that generated a key of its own (no
``NETPLATFORM_SECRET_KEY``, a data directory of its own) beside others over one database would
seal secrets nobody else opens, fail to open theirs, and present platform credentials the others
refuse: every delivery, forward and provisioning call failing one by one, long after the start.
So the first instance seals a known text into the store, and every later start opens it: one that
cannot refuses to start, saying why.
"""

from __future__ import annotations

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from ..settings import Settings
from ..store.db import database_for
from ..store.secrets import Sealer, SecretKeyError, UnsealError, sealer_for
from ..store.unit_of_work import UnitOfWork
from .tables import platform_key_check

CHECK_TEXT = "netplatform platform key check"


def verify_platform_key(settings: Settings) -> None:
    """Seal the check on a new store; on any other, raise :class:`SecretKeyError` unless one of
    the configured keys opens it."""
    sealer = sealer_for(settings)
    unit = UnitOfWork(database_for(settings), lambda session: session)
    stored = unit.write(lambda session: _stored_or_sealed(session, sealer))
    if stored is None:
        return
    try:
        opened = sealer.open(stored)
    except UnsealError:
        opened = None
    if opened != CHECK_TEXT:
        raise SecretKeyError(
            "this store's secrets are sealed with another platform key than this instance's "
            f"({_origin(settings)}): give every instance over one store the same key "
            "(NETPLATFORM_SECRET_KEY, or the same secret.key file)"
        )


def _stored_or_sealed(session: Session, sealer: Sealer) -> str | None:
    """The stored check, or None after sealing it with the newest key (a concurrent first start
    losing the insert race runs again and reads the winner's)."""
    stored = session.execute(select(platform_key_check.c.sealed)).scalar_one_or_none()
    if stored is None:
        session.execute(insert(platform_key_check).values(id=1, sealed=sealer.seal(CHECK_TEXT)))
    return stored


def _origin(settings: Settings) -> str:
    if settings.secret_key is not None:
        return "NETPLATFORM_SECRET_KEY"
    return str(settings.effective_secret_key_file)
