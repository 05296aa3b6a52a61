"""The platform key: sealing, opening, rotation, the key file (store/secrets.py)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, insert, select

from netplatform.settings import Settings
from netplatform.store.db import Database
from netplatform.store.secrets import (
    SEALED_PREFIX,
    SecretKeyError,
    SecretKeys,
    UnsealError,
    load_keys,
    reseal_column,
    sealer_for,
    sealer_of,
)

KEY_A = SecretKeys.generate()
KEY_B = SecretKeys.generate()


def test_a_sealed_value_opens_and_shows_nothing_of_the_secret() -> None:
    sealer = sealer_of([KEY_A])
    sealed = sealer.seal("s3cret-delivery-pw")
    assert sealed.startswith(SEALED_PREFIX)
    assert "s3cret" not in sealed
    assert sealed != sealer.seal("s3cret-delivery-pw")  # a fresh IV each time
    assert sealer.open(sealed) == "s3cret-delivery-pw"


def test_a_value_stored_before_sealing_reads_as_itself() -> None:
    assert sealer_of([KEY_A]).open("legacy-clear") == "legacy-clear"


def test_a_value_no_configured_key_opens_is_refused() -> None:
    sealed = sealer_of([KEY_A]).seal("x")
    with pytest.raises(UnsealError):
        sealer_of([KEY_B]).open(sealed)


def test_rotation_old_keys_open_the_newest_seals() -> None:
    old = sealer_of([KEY_A]).seal("pw")
    rotating = sealer_of([KEY_B, KEY_A])
    assert rotating.open(old) == "pw"
    resealed = rotating.reseal(old)
    assert sealer_of([KEY_B]).open(resealed) == "pw"  # the old key can now be dropped
    assert sealer_of([KEY_B]).open(rotating.reseal("clear")) == "clear"


def test_derived_credentials_follow_the_key_and_the_purpose() -> None:
    assert SecretKeys((KEY_A,)).derive("identity:svc.bus") == SecretKeys((KEY_A,)).derive("identity:svc.bus")
    assert SecretKeys((KEY_A,)).derive("identity:svc.bus") != SecretKeys((KEY_A,)).derive("identity:svc.node")
    both = SecretKeys((KEY_B, KEY_A)).derive("identity:svc.bus")
    assert both == [
        *SecretKeys((KEY_B,)).derive("identity:svc.bus"),
        *SecretKeys((KEY_A,)).derive("identity:svc.bus"),
    ]


@pytest.mark.parametrize("text", ["", "not-a-key", "c2hvcnQ="])
def test_unusable_key_material_is_refused_naming_its_origin(text: str) -> None:
    with pytest.raises(SecretKeyError, match="NETPLATFORM_SECRET_KEY"):
        SecretKeys.parse(text or ",", "NETPLATFORM_SECRET_KEY")


def test_the_key_file_is_created_once_for_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "var" / "secret.key"
    first = load_keys(None, path, create=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_keys(None, path, create=True) == first
    with pytest.raises(SecretKeyError, match="no secret key"):
        load_keys(None, tmp_path / "absent.key", create=False)


def test_the_environment_key_wins_over_the_file(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, secret_key=f"{KEY_B.decode()},{KEY_A.decode()}")
    assert sealer_for(settings).keys.keys == (KEY_B, KEY_A)
    assert not (tmp_path / "secret.key").exists()


def test_rotate_reseals_a_column_in_batches(database_url: str | None, tmp_path: Path) -> None:
    db = Database(database_url or f"sqlite:///{tmp_path / 'db.sqlite'}")
    metadata = MetaData()
    table = Table("sealed_things", metadata, Column("id", Integer, primary_key=True), Column("pw", String))
    metadata.create_all(db.engine)
    old = sealer_of([KEY_A])
    with db.write() as session:
        session.execute(insert(table), [{"id": i, "pw": old.seal(f"pw{i}")} for i in range(7)])
        session.execute(insert(table), [{"id": 7, "pw": "clear"}, {"id": 8, "pw": None}])
    rewritten = reseal_column(db, sealer_of([KEY_B, KEY_A]), table.c.pw, batch=3)
    assert rewritten == 8
    with db.read() as session:
        stored = dict(session.execute(select(table.c.id, table.c.pw)).all())
    new_only = sealer_of([KEY_B])
    assert {i: new_only.open(value) for i, value in stored.items() if value is not None} == {
        **{i: f"pw{i}" for i in range(7)},
        7: "clear",
    }
    assert stored[8] is None
    db.dispose()
