"""NETCONF sessions kept open between deploys: at most one idle session per device access.

A deploy that opens its own session pays the SSH key exchange, the login and the start of the
device's NETCONF subsystem (most of a deploy's time on a busy host). The pool keeps the session
of a deploy that ended cleanly, keyed by the whole :class:`DeviceAccess`: an inventory change
of host, port, credentials, pinned key or timeouts gives a different key, so a new session,
and the device's other idle sessions (same inventory name) are closed.

* checkout: an idle session is proved alive before reuse by the session's probe (the empty
  get-config of :mod:`.session`, a short wait); a dead one is closed and a new one opened;
* checkin: only the caller knows whether the session is clean (no lock held, no candidate
  change, no confirmed commit pending, every reply read): ``Held.keep`` says so, and anything
  else closes it (a timeout, a transport error, the step's time running out);
* idle sessions close after ``idle_s`` (a reaper thread); ``idle_s`` 0 turns pooling off (each
  deploy opens and closes its own session); :meth:`SessionPool.close` closes them all.

A session is held by one deploy at a time: checkout takes it out of the pool (the per-device
lease already serialises deploys to a device; the pool's own lock keeps it thread-safe anyway).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ncclient.manager import Manager

from .session import DeviceAccess, alive, close, open_session

log = logging.getLogger(__name__)

Opener = Callable[[DeviceAccess], tuple[Manager, float]]


@dataclass
class Held:
    """A session checked out for one deploy; ``keep`` set when it ended cleanly."""

    manager: Manager
    reused: bool
    keep: bool = False


@dataclass
class _Idle:
    access: DeviceAccess
    manager: Manager
    since: float


class SessionPool:
    """Idle NETCONF sessions by device access (module doc)."""

    def __init__(self, idle_s: float, opener: Opener = open_session) -> None:
        self.idle_s = idle_s
        self._open = opener
        self._guard = threading.Lock()
        self._idle: dict[DeviceAccess, _Idle] = {}
        self._stopped = threading.Event()
        self._reaper: threading.Thread | None = None
        if idle_s > 0:
            self._reaper = threading.Thread(target=self._reap, name="netconf-sessions", daemon=True)
            self._reaper.start()

    @contextmanager
    def session(self, access: DeviceAccess) -> Iterator[Held]:
        """A live session with the device; kept for the next deploy when ``keep`` is set."""
        held = self._checkout(access)
        try:
            yield held
        finally:
            self._checkin(access, held)

    def _checkout(self, access: DeviceAccess) -> Held:
        with self._guard:
            idle = self._idle.pop(access, None)
            stale = [self._idle.pop(key) for key in list(self._idle) if key.name == access.name]
        for other in stale:  # the inventory changed: the old session is not used again
            log.info("%s: its inventory entry changed: the idle session is closed", other.access.where)
            _close_idle(other.manager)
        if idle is not None:
            if time.monotonic() - idle.since < self.idle_s and alive(idle.manager, access):
                return Held(idle.manager, reused=True)
            log.info("%s: the idle session is gone: a new one is opened", access.where)
            _close_idle(idle.manager)
        manager, _ = self._open(access)
        return Held(manager, reused=False)

    def _checkin(self, access: DeviceAccess, held: Held) -> None:
        if not held.keep or self.idle_s <= 0 or self._stopped.is_set() or not held.manager.connected:
            close(held.manager)
            return
        with self._guard:
            replaced = self._idle.pop(access, None)
            self._idle[access] = _Idle(access, held.manager, time.monotonic())
        if replaced is not None:  # never while deploys to a device are serialised
            _close_idle(replaced.manager)
        if self._stopped.is_set():  # close() ran meanwhile: nothing is left open behind it
            self._close_all()

    def _reap(self) -> None:
        interval = max(0.05, min(self.idle_s / 4, 5.0))
        while not self._stopped.wait(interval):
            self._close_expired()

    def _close_expired(self) -> None:
        now = time.monotonic()
        with self._guard:
            expired = [key for key, idle in self._idle.items() if now - idle.since >= self.idle_s]
            closing = [self._idle.pop(key) for key in expired]
        for idle in closing:
            log.debug("%s: idle session closed after %g s", idle.access.where, self.idle_s)
            _close_idle(idle.manager)

    def _close_all(self) -> None:
        with self._guard:
            closing = list(self._idle.values())
            self._idle.clear()
        for idle in closing:
            _close_idle(idle.manager)

    def close(self) -> None:
        """Every idle session closed, the reaper stopped (sessions in use close at checkin)."""
        self._stopped.set()
        if self._reaper is not None:
            self._reaper.join(timeout=10)
        self._close_all()


_CLOSE_WAIT_S = 1.0


def _close_idle(manager: Manager) -> None:
    """An idle session closed with a short wait for the device's answer to close-session: a
    device that went silent must not hold the reaper, nor the service's stop, for its whole
    reply timeout (the SSH connection is dropped either way)."""
    manager.timeout = _CLOSE_WAIT_S
    close(manager)
