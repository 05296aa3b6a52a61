"""Sign-outs that hold on every console instance and across restarts.

A session is an encrypted cookie (sessions.py): the console keeps no session state, so ending
one before it expires needs a record somewhere every instance reads. The smallest durable one is
a row in the platform's database (the one the services share; ``NETPLATFORM_DATABASE_URL``,
which console instances must share too): the session id's SHA-256 and when the session would
have expired, deleted after that. Every page reads it once (one indexed lookup); a sign-out
writes it. The console touches no other table.
"""

from __future__ import annotations

import hashlib

from anyio.to_thread import run_sync
from sqlalchemy import select
from sqlalchemy.orm import Session as DbSession

from ..access import tables
from ..clock import now_ms
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork


class SignOutRepository:
    def __init__(self, session: DbSession) -> None:
        self.session = session

    def holds(self, key: str, moment: int) -> bool:
        s = tables.console_signouts.c
        query = select(s.session).where(s.session == key, s.expires > moment)
        return self.session.execute(query).first() is not None

    def record(self, key: str, expires: int, moment: int) -> None:
        """Record a sign-out (again: the later expiry stays) and forget those past their expiry."""
        s = tables.console_signouts.c
        self.session.execute(tables.console_signouts.delete().where(s.expires <= moment))
        self.session.execute(tables.console_signouts.delete().where(s.session == key))
        self.session.execute(tables.console_signouts.insert().values(session=key, expires=expires))


def _key(sid: str) -> str:
    return hashlib.sha256(sid.encode()).hexdigest()


class SignOuts:
    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, SignOutRepository)

    async def ended(self, sid: str) -> bool:
        """Whether the session was signed out (on any instance)."""
        key, moment = _key(sid), now_ms()
        return await run_sync(lambda: self.unit.read(lambda signouts: signouts.holds(key, moment)))

    async def end(self, sid: str, expires_ms: int) -> None:
        """Sign the session out until ``expires_ms``, when it would have expired anyway."""
        key, moment = _key(sid), now_ms()
        await run_sync(lambda: self.unit.write(lambda signouts: signouts.record(key, expires_ms, moment)))
