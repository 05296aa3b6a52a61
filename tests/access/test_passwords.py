"""The production argon2 parameters (the suite hashes at a lower cost: tests/support/hashing.py)."""

from __future__ import annotations

from netplatform.access.passwords import PRODUCTION_HASHER, hash_password, verify_password

from ..support.hashing import production_cost


def test_production_hashes_are_argon2id_at_rfc_9106_low_memory_parameters() -> None:
    assert (PRODUCTION_HASHER.memory_cost, PRODUCTION_HASHER.time_cost) == (65536, 3)
    assert PRODUCTION_HASHER.parallelism == 4
    with production_cost():
        encoded = hash_password("s3cret")
    assert encoded.startswith("$argon2id$v=19$m=65536,t=3,p=4$"), encoded
    assert verify_password(encoded, "s3cret") and not verify_password(encoded, "other")


def test_a_missing_hash_verifies_nothing_after_a_production_cost_check() -> None:
    with production_cost():
        assert not verify_password(None, "anything")
        assert not verify_password("", "")
