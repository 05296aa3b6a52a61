"""Passwords are kept only as argon2id hashes: no table of the database and no log line holds
one in clear."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from sqlalchemy import String, Text, column, create_engine, inspect, select, table

from netplatform.access.passwords import is_hashed
from netplatform.settings import Settings
from netplatform.store.db import normalize_url

from ..conftest import ServiceStarter, SettingsFactory
from ..support.answers import ok
from .conftest import ADMIN, AUTHZ_USERS, client_as, unique


def every_text_value(settings: Settings) -> list[tuple[str, str, str]]:
    """(table, column, value) of every text column of every table of the database."""
    engine = create_engine(normalize_url(settings.effective_database_url))
    found: list[tuple[str, str, str]] = []
    try:
        inspector = inspect(engine)
        with engine.connect() as connection:
            for name in inspector.get_table_names():
                columns = [
                    item["name"]
                    for item in inspector.get_columns(name)
                    if isinstance(item["type"], String | Text)
                ]
                if not columns:
                    continue
                rows: Any = connection.execute(select(*(column(c) for c in columns)).select_from(table(name)))
                for row in rows:
                    found += [(name, c, str(value)) for c, value in zip(columns, row, strict=True) if value]
    finally:
        engine.dispose()
    return found


def test_no_password_is_stored_or_logged_in_clear(
    start_service: ServiceStarter, make_settings: SettingsFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    authz = start_service("authz", make_settings(users=AUTHZ_USERS, access_log=True))
    passwords = {unique(f"svc{index}") + "@example.org": unique("Pa55-word") for index in range(3)}
    changed = unique("Changed-pa55")
    with client_as(authz, ADMIN) as admin:
        for identity, password in passwords.items():
            ok(admin.post("/authn/cred", json={"id": identity, "password": password}), 201)
            ok(admin.post("/authn/validate", json={"id": identity, "password": password}))
        first = next(iter(passwords))
        ok(admin.put(f"/authn/cred/{first}", json={"password": changed}))
        # Refusals must not echo them either.
        admin.post("/authn/validate", json={"id": first, "password": passwords[first]})
        admin.put(f"/authn/cred/{first}", json={"password": changed + "x" * 1100})
    with client_as(authz, (first, changed)) as itself:
        itself.get(f"/authz/roles/user/{first}")

    secrets = [*passwords.values(), changed]
    values = every_text_value(authz.settings)
    hashes = [
        value
        for table_name, col, value in values
        if (table_name, col) == ("authz_identities", "password_hash")
    ]
    assert len(hashes) == len(passwords) and all(is_hashed(value) for value in hashes)
    assert all(value.startswith("$argon2id$") for value in hashes)
    leaks = [(name, col) for name, col, value in values for secret in secrets if secret in value]
    assert not leaks, leaks

    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/authn/cred" in logged  # the access log was captured
    assert not [secret for secret in secrets if secret in logged]
