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


def test_an_edge_names_central_once_and_reaches_each_service_at_its_own_port_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 38: NETPLATFORM_CENTRAL_URL gives the central authz and distribution URLs, at the
    ports this site has for those services (every site runs a service on the same port)."""
    monkeypatch.setenv("NETPLATFORM_CENTRAL_URL", "https://central.example/")
    settings = Settings()
    assert settings.central_url == "https://central.example"
    assert settings.authz_url == "https://central.example:8087"
    assert settings.distribution_central_url == "https://central.example:8082"
    monkeypatch.setenv("NETPLATFORM_AUTHZ_PORT", "9087")
    monkeypatch.setenv("NETPLATFORM_DISTRIBUTION_PORT", "9082")
    assert (Settings().authz_url, Settings().distribution_central_url) == (
        "https://central.example:9087",
        "https://central.example:9082",
    )
    assert KernelSettings().authz_url == "https://central.example:9087"
    assert Settings(central_url="http://[::1]").authz_url == "http://[::1]:9087"


def test_the_central_url_yields_to_the_urls_named_whole_and_names_no_port() -> None:
    explicit = Settings(
        central_url="https://central.example",
        authz_url="https://authz.example:443",
        distribution_central_url="https://files.example",
    )
    assert (explicit.authz_url, explicit.distribution_central_url) == (
        "https://authz.example:443",
        "https://files.example",
    )
    assert (Settings().authz_url, Settings().distribution_central_url) == (None, None)
    for wrong in ("https://central.example:8087", "central.example", "ftp://central.example", "http://c/x"):
        with pytest.raises(ValueError, match="NETPLATFORM_CENTRAL_URL"):
            Settings(central_url=wrong)
