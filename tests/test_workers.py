"""``netplatform serve --workers 2``: two processes answer on every port and stop together."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx

from .support.servers import ServeProcess
from .test_cli import serve_env


def test_two_workers_share_every_port_and_stop_on_sigterm(tmp_path: Path, database_url: str | None) -> None:
    env, ports = serve_env(tmp_path, database_url, NETPLATFORM_WORKERS="2", NETPLATFORM_LOG_LEVEL="INFO")
    process = ServeProcess(env, log_path=tmp_path / "serve.log").start(wait_ports=list(ports.values()))
    try:
        # The parent binds the ports before the workers have built their apps: the first answer
        # on each port waits for a worker to be ready (long on a loaded machine).
        for port in ports.values():
            assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=60).status_code == 200
        # Fresh connections spread over the workers: both answer policy writes and reads.
        auth = ("ops", "s3cret")
        for _ in range(20):
            with httpx.Client(auth=auth, timeout=10) as client:  # a new connection each time
                listing = client.get(f"http://127.0.0.1:{ports['policy']}/policy/api/v1/policytypes")
            assert listing.status_code == 200
        log = process.log()
        assert "serving with 2 worker processes" in log
        assert log.count("policy listening on") == 2
    finally:
        assert process.stop(signal.SIGTERM) == 0
