"""argon2 at test cost (issue 40): the suite hashes and verifies passwords thousands of times,
and at the production parameters (64 MiB, three passes: 0.1 to 0.2 s a hash on this machine's
cores) that was a large part of the fast lane. The suite makes its hashes with the cheapest
argon2id parameters instead; they are still argon2id hashes, verified by the same code.
tests/access/test_passwords.py checks the production parameters, and a test that needs checks
to take their real time (the bounded pool) asks for ``production_hashing``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from argon2 import PasswordHasher

from netplatform.access.passwords import PRODUCTION_HASHER, use_hasher

TEST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def hash_cheaply() -> None:
    """Every hash this process makes from now on at TEST_HASHER's cost."""
    use_hasher(TEST_HASHER)


@contextmanager
def production_cost() -> Iterator[None]:
    """Hashes at the production parameters within, at the test cost again after."""
    use_hasher(PRODUCTION_HASHER)
    try:
        yield
    finally:
        use_hasher(TEST_HASHER)
