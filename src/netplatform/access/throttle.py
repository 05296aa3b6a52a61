"""Failed authentications, throttled: per identity name and client address, per address, per name.

Guessing a password takes many failures; a person who mistypes makes a few. So failures are
counted in leaky buckets (each failure adds one, the level drains at ``failures / window_s`` per
second), and a request whose bucket has no room for one more failure is refused before its
password is checked: 429 with ``Retry-After``, the seconds until there is room again. Three
buckets, each with its own bound (docs/security.md "Authentication under attack"):

* **(name, address)**: the tight bound. One address guessing one name is stopped after a few
  tries; the same name from any other address is not affected, so an attacker cannot lock the
  real user out from where the user signs in.
* **address**: a looser bound on failures from one address whatever the names it tries (one
  address spraying many names).
* **name**: a looser bound on failures of one name from every address (many addresses guessing
  one name). It does not apply to an address the name has signed in from (successfully) while
  this process remembers it, so the real user keeps getting in from where they work while a
  distributed attack goes on; an address new to the name waits like the attackers.

A success empties its (name, address) bucket (the user who mistyped is not held to old
failures) but not the others, which an attacker could otherwise drain by signing in as
themselves between guesses. A caller being held is held with credentials already verified and
remembered too (else a held guesser would learn from a 200 instead of a 429 that it guessed the
password someone else signs in with); the hot path looks at the buckets only when the name or
the address has one. The buckets live in the process (the apps of one process share them); each
instance of a scaled-out deployment counts its own.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from ..settings import Settings

log = logging.getLogger("netplatform.auth")

_MOST_BUCKETS = 65_536
_MOST_KNOWN_NAMES = 65_536
_KNOWN_PER_NAME = 16
KNOWN_ADDRESS_S = 7 * 86_400.0
"""How long an address a name signed in from stays exempt from the name's bound."""


@dataclass(frozen=True)
class Bound:
    """At most ``failures`` within ``window_s`` (a leaky bucket of that size draining over the
    window); ``failures`` 0: no bound."""

    failures: int
    window_s: float

    @property
    def drain_per_s(self) -> float:
        return self.failures / self.window_s


class _Buckets:
    """Leaky buckets by key, bounded in number (the least recently failed go first)."""

    def __init__(self, bound: Bound) -> None:
        self.bound = bound
        # key -> (level, at); read without the lock by Throttle.may_hold (membership only)
        self.levels: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def level(self, key: Hashable, now: float) -> float:
        found = self.levels.get(key)
        if found is None:
            return 0.0
        level, at = found
        level = max(0.0, level - (now - at) * self.bound.drain_per_s)
        if level == 0.0:
            del self.levels[key]  # drained: nothing to hold
        return level

    def wait_s(self, key: Hashable, now: float) -> float:
        """Seconds until one more failure fits (0: it fits now)."""
        if self.bound.failures <= 0:
            return 0.0
        over = self.level(key, now) + 1.0 - self.bound.failures
        return over / self.bound.drain_per_s if over > 0 else 0.0

    def fail(self, key: Hashable, now: float) -> None:
        if self.bound.failures <= 0:
            return
        level = self.level(key, now) + 1.0
        self.levels[key] = (level, now)
        self.levels.move_to_end(key)
        if len(self.levels) > _MOST_BUCKETS:
            self.levels.popitem(last=False)

    def clear(self, key: Hashable) -> None:
        self.levels.pop(key, None)


class Throttle:
    """The three buckets and the addresses each name signed in from. Safe to call from several
    threads (the apps of one process may run on event loops of their own)."""

    def __init__(
        self,
        per_client: Bound,
        per_address: Bound,
        per_name: Bound,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clients = _Buckets(per_client)
        self.addresses = _Buckets(per_address)
        self.names = _Buckets(per_name)
        self._name_levels = self.names.levels
        self._address_levels = self.addresses.levels
        self._client_levels = self.clients.levels
        self.clock = clock
        self.throttled = 0  # refusals, for the metrics
        self.failures = 0
        self._known: OrderedDict[str, dict[str, float]] = OrderedDict()  # name -> address -> until
        self._lock = threading.Lock()

    def may_hold(self, name: str, address: str | None) -> bool:
        """False when no bucket of the name or the address holds failures: the caller cannot be
        held, and a remembered credential needs no closer look (lock-free plain dictionary
        lookups, for the hot path)."""
        if name in self._name_levels:
            return True
        return address is not None and (
            address in self._address_levels or (name, address) in self._client_levels
        )

    def retry_after(self, name: str | None, address: str | None) -> int | None:
        """The whole seconds to wait before a credential check of ``name`` from ``address`` is
        taken, or None when it may be taken now (an unknown address, None, is held to the
        name's bound alone). A refusal is counted for the metrics."""
        with self._lock:
            wait = self._wait(name, address, self.clock())
            if wait is not None:
                self.throttled += 1
            return wait

    def failed(self, name: str | None, address: str | None) -> None:
        """Count a failed check, and log it with the name tried (never the password). Refusals
        by the throttle are not logged one by one (an attacker would fill the log); the failure
        that fills a bucket says for how long the next ones will be refused."""
        with self._lock:
            now = self.clock()
            self.failures += 1
            if address is not None:
                self.addresses.fail(address, now)
                if name is not None:
                    self.clients.fail((name, address), now)
            if name is not None and not self._is_known(name, address, now):
                self.names.fail(name, now)
            wait = self._wait(name, address, now)
        where = address or "an unknown address"
        if wait is None:
            log.warning("authentication failed for %r from %s", name, where)
        else:
            log.warning(
                "authentication failed for %r from %s; its next attempts are refused for %d s",
                name,
                where,
                wait,
            )

    def _wait(self, name: str | None, address: str | None, now: float) -> int | None:
        waits = [0.0]
        if address is not None:
            waits.append(self.addresses.wait_s(address, now))
            if name is not None:
                waits.append(self.clients.wait_s((name, address), now))
        if name is not None and not self._is_known(name, address, now):
            waits.append(self.names.wait_s(name, now))
        wait = max(waits)
        return max(1, math.ceil(wait)) if wait > 0 else None

    def succeeded(self, name: str, address: str | None) -> None:
        if address is None:
            return
        with self._lock:
            self.clients.clear((name, address))
            known = self._known.pop(name, {})
            known[address] = self.clock() + KNOWN_ADDRESS_S
            while len(known) > _KNOWN_PER_NAME:
                known.pop(min(known, key=known.__getitem__))
            self._known[name] = known
            if len(self._known) > _MOST_KNOWN_NAMES:
                self._known.popitem(last=False)

    def _is_known(self, name: str, address: str | None, now: float) -> bool:
        if address is None:
            return False
        until = self._known.get(name, {}).get(address)
        return until is not None and until > now


def throttle_for(settings: Settings) -> Throttle:
    """A throttle with the settings' bounds (``NETPLATFORM_AUTH_FAILURES_*``), over one window."""
    window = settings.auth_failure_window_s
    return Throttle(
        Bound(settings.auth_failures_per_client, window),
        Bound(settings.auth_failures_per_address, window),
        Bound(settings.auth_failures_per_name, window),
    )
