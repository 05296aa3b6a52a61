"""The ``netplatform`` command as an operator runs it: a real process, real ports, real signals."""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from netplatform import __version__
from netplatform.settings import SERVED_NAMES, SERVICE_NAMES

from .support.keys import TEST_SECRET_KEY
from .support.servers import ServeProcess, free_port
from .support.tls import TlsFiles


def serve_env(
    tmp_path: Path, database_url: str | None, **extra: str
) -> tuple[dict[str, str], dict[str, int]]:
    ports = {name: free_port() for name in SERVED_NAMES}
    env = {f"NETPLATFORM_{name.upper()}_PORT": str(port) for name, port in ports.items()}
    env["NETPLATFORM_DATA_DIR"] = str(tmp_path / "data")
    env["NETPLATFORM_USERS"] = "ops:s3cret"
    if database_url:
        env["NETPLATFORM_DATABASE_URL"] = database_url
    env.update(extra)
    return env, ports


def port_is_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def test_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "netplatform", "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"netplatform {__version__}"


def test_db_upgrade_creates_the_database_in_the_data_dir(tmp_path: Path) -> None:
    env, _ = serve_env(tmp_path, None)
    result = subprocess.run(
        [sys.executable, "-m", "netplatform", "db", "upgrade"],
        env={**env, "PATH": ""},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "netplatform.db").exists()


@pytest.mark.parametrize(
    ("variable", "value"), [("NETPLATFORM_USERS", "no-password"), ("NETPLATFORM_TLS_CERT", "/tmp/cert.pem")]
)
def test_bad_configuration_is_reported_not_traced(tmp_path: Path, variable: str, value: str) -> None:
    env, _ = serve_env(tmp_path, None, **{variable: value})
    result = subprocess.run(
        [sys.executable, "-m", "netplatform", "serve"], env=env, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert f"invalid configuration: {variable}" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_starts_all_six_and_the_console_with_configured_users_and_stops_gracefully(
    tmp_path: Path, database_url: str | None
) -> None:
    env, ports = serve_env(tmp_path, database_url)
    process = ServeProcess(env, log_path=tmp_path / "serve.log").start(wait_ports=list(ports.values()))
    try:
        for name, port in ports.items():
            url = f"http://127.0.0.1:{port}"
            named = {"engine": "embedded"} if name == "router" else {}  # the router names its engine
            assert httpx.get(f"{url}/health").json() == {"service": name, "status": "UP", **named}
        for name in SERVICE_NAMES:
            url = f"http://127.0.0.1:{ports[name]}"
            assert httpx.get(f"{url}/metrics", auth=("ops", "s3cret")).status_code == 200
            assert httpx.get(f"{url}/metrics", auth=("admin", "admin")).status_code == 401
        # The console signs in with the same users: its form is served, and nothing else is.
        console = f"http://127.0.0.1:{ports['console']}"
        assert httpx.get(f"{console}/").status_code == 303
    finally:
        code = process.stop(signal.SIGTERM)
    assert code == 0, process.log()
    assert "default admin:admin" not in process.log()
    if not database_url:
        assert (tmp_path / "data" / "netplatform.db").exists()


def test_default_credentials_warn(tmp_path: Path) -> None:
    env, ports = serve_env(tmp_path, None)
    env.pop("NETPLATFORM_USERS")
    process = ServeProcess(
        {**env, "NETPLATFORM_USERS": "admin:admin"}, ["--only", "policy"], tmp_path / "log"
    )
    process.start(wait_ports=[ports["policy"]])
    try:
        assert (
            httpx.get(f"http://127.0.0.1:{ports['policy']}/metrics", auth=("admin", "admin")).status_code
            == 200
        )
    finally:
        process.stop()
    assert "default admin:admin credentials are in use" in process.log()


def test_only_starts_the_named_services(tmp_path: Path, database_url: str | None) -> None:
    env, ports = serve_env(tmp_path, database_url)
    process = ServeProcess(env, ["--only", "policy", "--only", "bus"], tmp_path / "serve.log")
    process.start(wait_ports=[ports["policy"], ports["bus"]])
    try:
        assert port_is_open(ports["policy"]) and port_is_open(ports["bus"])
        for name in ("blueprints", "distribution", "configtree", "router"):
            assert not port_is_open(ports[name]), name
    finally:
        assert process.stop() == 0


def test_unknown_service_name_is_refused(tmp_path: Path) -> None:
    env, _ = serve_env(tmp_path, None)
    result = subprocess.run(
        [sys.executable, "-m", "netplatform", "serve", "--only", "nosuch"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "nosuch" in result.stderr


def test_taken_port_fails_fast_with_a_message(tmp_path: Path) -> None:
    env, ports = serve_env(tmp_path, None)
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", ports["policy"]))
        blocker.listen()
        result = subprocess.run(
            [sys.executable, "-m", "netplatform", "serve", "--only", "policy"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode != 0
    assert f"cannot listen on 127.0.0.1:{ports['policy']}" in result.stderr


def test_tls_listeners(tmp_path: Path, tls: TlsFiles) -> None:
    env, ports = serve_env(
        tmp_path, None, NETPLATFORM_TLS_CERT=str(tls.cert_chain), NETPLATFORM_TLS_KEY=str(tls.private_key)
    )
    process = ServeProcess(env, ["--only", "configtree"], tmp_path / "serve.log").start(
        wait_ports=[ports["configtree"]]
    )
    try:
        response = httpx.get(
            f"https://127.0.0.1:{ports['configtree']}/health",
            verify=ssl.create_default_context(cafile=str(tls.ca_bundle)),
        )
        assert response.status_code == 200
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{ports['configtree']}/health", timeout=5)
    finally:
        assert process.stop() == 0


def test_sigterm_lets_the_process_exit_even_when_idle_connections_are_open(tmp_path: Path) -> None:
    env, ports = serve_env(tmp_path, None)
    process = ServeProcess(env, ["--only", "bus"], tmp_path / "serve.log").start(wait_ports=[ports["bus"]])
    with socket.create_connection(("127.0.0.1", ports["bus"])):
        code = process.stop(signal.SIGTERM, timeout=60)
    assert code == 0


def test_data_written_before_a_restart_is_there_after_it(tmp_path: Path, database_url: str | None) -> None:
    env, ports = serve_env(tmp_path, database_url)
    args = ["--only", "policy", "--only", "configtree"]
    policy = f"http://127.0.0.1:{ports['policy']}/policy/api/v1/policytypes"
    entry = (
        f"http://127.0.0.1:{ports['configtree']}/config/GENERIC-RESOURCE-API:brg-allotted-resources"
        "/GENERIC-RESOURCE-API:brg-allotted-resource/ar-restart/"
    )
    body = {"GENERIC-RESOURCE-API:brg-allotted-resource": [{"allotted-resource-id": "ar-restart"}]}
    template = {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "policy_types": {"restart.Probe": {"derived_from": "tosca.policies.Root", "version": "1.0.0"}},
    }
    auth = ("ops", "s3cret")
    first = ServeProcess(env, args, tmp_path / "first.log").start(
        wait_ports=[ports["policy"], ports["configtree"]]
    )
    try:
        assert httpx.post(policy, json=template, auth=auth).status_code == 200
        assert httpx.put(entry, json=body, auth=auth).status_code == 201
    finally:
        assert first.stop() == 0
    second = ServeProcess(env, args, tmp_path / "second.log").start(
        wait_ports=[ports["policy"], ports["configtree"]]
    )
    try:
        assert "restart.Probe" in httpx.get(f"{policy}/restart.Probe", auth=auth).json()["policy_types"]
        assert httpx.get(entry, auth=auth).json() == body
    finally:
        assert second.stop() == 0


def test_an_instance_with_another_platform_key_than_the_store_refuses_to_start(
    tmp_path: Path, database_url: str | None
) -> None:
    """Two instances over one store, the second with a key of its own (its own data directory,
    no NETPLATFORM_SECRET_KEY): it says so and exits instead of failing every sealed secret."""
    store = database_url or f"sqlite:///{tmp_path / 'shared.db'}"
    first_env, first_ports = serve_env(tmp_path / "first", None, NETPLATFORM_DATABASE_URL=store)
    first = ServeProcess(first_env, ["--only", "policy"], tmp_path / "first.log")
    first.start(wait_ports=[first_ports["policy"]])
    assert first.stop() == 0
    second_env, second_ports = serve_env(tmp_path / "second", None, NETPLATFORM_DATABASE_URL=store)
    other_key = subprocess.run(
        [sys.executable, "-m", "netplatform", "secrets", "new-key"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert other_key != TEST_SECRET_KEY
    result = subprocess.run(
        [sys.executable, "-m", "netplatform", "serve", "--only", "policy"],
        env={**os.environ, **second_env, "NETPLATFORM_SECRET_KEY": other_key},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert "sealed with another platform key" in result.stderr
    again = ServeProcess(second_env, ["--only", "policy"], tmp_path / "again.log")  # the store's key
    again.start(wait_ports=[second_ports["policy"]])
    assert again.stop() == 0
