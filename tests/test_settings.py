"""Settings read from the environment."""

import socket

import pytest

from netplatform.settings import Settings, parse_users


def test_users_setting_parses_pairs_and_rejects_garbage() -> None:
    assert parse_users("a:1, b:2:3") == {"a": "1", "b": "2:3"}
    for bad in ("", "nopassword", ":x", "a:"):
        with pytest.raises(ValueError):
            parse_users(bad)


def test_instance_name_defaults_to_host_and_distribution_port() -> None:
    assert Settings(distribution_port=9100).instance_name == f"{socket.gethostname()}-9100"
    assert Settings(instance_name="dist-a").instance_name == "dist-a"


def test_tls_certificate_and_key_come_together(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="set together"):
        Settings(tls_cert=tmp_path / "cert.pem")
    with pytest.raises(ValueError, match="set together"):
        Settings(tls_key=tmp_path / "key.pem")
