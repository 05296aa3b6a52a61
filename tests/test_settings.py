"""Settings read from the environment."""

import socket

import pytest

from netplatform.settings import (
    BlueprintsSettings,
    BusSettings,
    ConsoleSettings,
    DistributionSettings,
    KernelSettings,
    RouterSettings,
    Settings,
    parse_user_entries,
    parse_users,
)


def test_users_setting_parses_pairs_and_rejects_garbage() -> None:
    assert parse_users(r"a:1, b:2\:3") == {"a": "1", "b": "2:3"}
    for bad in ("", "nopassword", ":x", "a:", "a:1:r:extra", "a:1\\"):
        with pytest.raises(ValueError):
            parse_users(bad)


def test_users_may_hold_roles_and_escape_separators_in_passwords() -> None:
    entries = parse_user_entries(r"alice:pw:ops|audit, bob:b\:c\,d\\e, carol:x:")
    assert entries["alice"].password == "pw" and entries["alice"].roles == {"ops", "audit"}
    assert entries["bob"].password == "b:c,d\\e" and entries["bob"].roles == frozenset()
    assert entries["carol"].password == "x" and entries["carol"].roles == frozenset()
    settings = Settings(users=r"alice:pw:ops|audit,bob:b\:c")
    assert settings.user_table == {"alice": "pw", "bob": "b:c"}
    assert settings.role_table == {"alice": frozenset({"ops", "audit"})}


def test_router_admins_name_identities_and_default_to_none() -> None:
    """Router administrators are the holders of platform.router.admin; the setting adds identities
    (issue 36: the first user is no longer one by its name, it holds platform.admin)."""
    assert Settings(users="ctl:pw,alice:pw").router_admin_identities == frozenset()
    assert Settings(users="ctl:pw", router_admins="ops, alice").router_admin_identities == {"ops", "alice"}


def test_instance_name_defaults_to_host_and_distribution_port() -> None:
    assert Settings(distribution_port=9100).instance_name == f"{socket.gethostname()}-9100"
    assert Settings(instance_name="dist-a").instance_name == "dist-a"


def test_tls_certificate_and_key_come_together(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="set together"):
        Settings(tls_cert=tmp_path / "cert.pem")
    with pytest.raises(ValueError, match="set together"):
        Settings(tls_key=tmp_path / "key.pem")


def test_the_first_retry_pause_may_not_exceed_the_longest() -> None:
    with pytest.raises(ValueError, match="must not exceed"):
        Settings(delivery_retry_initial_s=30, delivery_retry_max_s=0.4)
    assert Settings(delivery_retry_initial_s=5, delivery_retry_max_s=5).delivery_retry_max_s == 5


def test_each_part_reads_its_own_settings_and_settings_composes_them_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every service's settings are a model of their own, read alone from the same variables;
    Settings is exactly their union (no field in two parts, none outside them)."""
    monkeypatch.setenv("NETPLATFORM_ROUTER_POLL_MS", "500")
    monkeypatch.setenv("NETPLATFORM_BUS_RECONCILE_S", "7")
    assert RouterSettings().router_poll_ms == 500 and Settings().router_poll_ms == 500
    assert BusSettings().bus_reconcile_s == 7 and Settings().bus_reconcile_s == 7
    parts = (
        KernelSettings,
        BlueprintsSettings,
        DistributionSettings,
        BusSettings,
        RouterSettings,
        ConsoleSettings,
    )
    fields = [name for part in parts for name in part.model_fields]
    assert len(fields) == len(set(fields)), "a field is declared by two parts"
    assert set(fields) == set(Settings.model_fields)
    with pytest.raises(ValueError, match="must not exceed"):  # a part's own rule holds alone
        DistributionSettings(delivery_retry_initial_s=30, delivery_retry_max_s=0.4)
