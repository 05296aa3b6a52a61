"""What the crash loops share: `netplatform serve` children that can be killed and restarted,
a private PostgreSQL cluster, an HTTPS subscriber, the tally and its one-line summary.

Every script runs real processes over loopback and counts from what the clients saw: a write
is *acknowledged* when its answer was 2xx, and each acknowledged write must be found again
(received by every consumer group, delivered to the subscriber, read back) however often the
server was killed. Duplicates are counted, not forgiven silently.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ADMIN = ("admin", "admin")
ADMIN_HEADERS = {"Authorization": "Basic " + base64.b64encode(b"admin:admin").decode()}


PLATFORM_KEY = base64.urlsafe_b64encode(os.urandom(32)).decode("ascii")  # a Fernet key, as `secrets new-key`
PORTS_ENV = "NETPLATFORM_CHAOS_PORTS"
_GIVEN_PORTS = [int(port) for port in os.environ.get(PORTS_ENV, "").split(",") if port.strip().isdigit()]
"""Ports handed to the script (tests/chaos: taken from the test run's own block, so no parallel
test binds them meanwhile); once they are used up, ports the OS picks."""


def free_port() -> int:
    if _GIVEN_PORTS:
        return _GIVEN_PORTS.pop(0)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def arguments(description: str, **extra: Any) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--cycles", type=int, default=50, help="kill/restart cycles (default 50)")
    parser.add_argument("--load-s", type=float, default=1.5, help="seconds of load before each kill")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory (logs)")
    return parser


class Scratch:
    """A temporary directory, removed at the end unless asked to keep it (or the run failed)."""

    def __init__(self, prefix: str, keep: bool) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=prefix))
        self.keep = keep

    def close(self, failed: bool) -> None:
        if self.keep or failed:
            print(f"logs and data kept in {self.path}", file=sys.stderr)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


class Serve:
    """One `netplatform serve --only ...` child with a fixed environment: killed and started again
    on the same ports, data directory and instance name, as an operator's supervisor would."""

    def __init__(self, env: Mapping[str, str], only: list[str], ports: list[int], log: Path) -> None:
        # Every instance of one platform holds the same platform key (docs/operations.md): one
        # generated per run, given to each child the way an operator gives NETPLATFORM_SECRET_KEY.
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT / "src"),
            "NETPLATFORM_SECRET_KEY": PLATFORM_KEY,
            **env,
        }
        self.args = [arg for name in only for arg in ("--only", name)]
        self.ports = ports
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Spawn it; returns the monotonic time of the spawn (recovery is measured from there)."""
        with open(self.log, "ab") as output:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "netplatform", "serve", *self.args],
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        return time.monotonic()

    def wait_ports(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        for port in self.ports:
            while not port_open(port):
                if self.process is not None and self.process.poll() is not None:
                    raise RuntimeError(f"serve exited with {self.process.returncode}; see {self.log}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"port {port} did not open within {timeout} s; see {self.log}")
                time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, nothing the process could still do."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()


def postgres_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not found:
        raise RuntimeError("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
    return found[-1].parent


class PrivatePostgres:
    """A PostgreSQL cluster of our own (initdb in a scratch directory, a random port, trust
    auth), so it can be stopped and killed without touching anyone else's server."""

    def __init__(self, folder: Path) -> None:
        self.bin = postgres_bin()
        self.data = folder / "pgdata"
        self.socket_dir = folder / "pgsock"
        self.log = folder / "postgres.log"
        self.port = free_port()
        self.socket_dir.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(args, check=check, capture_output=True, timeout=120, env=self._env())

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        if os.geteuid() == 0:  # initdb and postgres refuse root: run them as the postgres user
            env["HOME"] = str(self.data.parent)
        return env

    def _as_server_user(self, *args: str) -> list[str]:
        if os.geteuid() != 0:
            return list(args)
        return ["runuser", "-u", "postgres", "--", *args]

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.data.parent, "postgres")
            shutil.chown(self.socket_dir, "postgres")
        self._run(
            *self._as_server_user(
                str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-N"
            )
        )

    def start(self) -> float:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.socket_dir} "
            "-c max_connections=200 -c fsync=on -c synchronous_commit=on"
        )
        started = time.monotonic()
        self._run(
            *self._as_server_user(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options, "-w",
                "start",
            )
        )  # fmt: skip
        return started

    def stop(self, mode: str) -> None:
        """``immediate``: every server process quits at once, no checkpoint (a crash, recovered
        from the WAL at the next start); ``fast``: sessions are cut, then a clean shutdown."""
        self._run(
            *self._as_server_user(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"),
            check=False,
        )


@dataclass
class Tally:
    """What a run saw; ``line()`` is the one-line summary every script prints."""

    name: str
    cycles: int = 0
    acknowledged: int = 0
    received: int = 0
    lost: int = 0
    duplicates: int = 0
    recoveries: list[float] = field(default_factory=list)
    outage_answers: dict[str, int] = field(default_factory=dict)
    unexpected: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def outage(self, kind: str) -> None:
        self.outage_answers[kind] = self.outage_answers.get(kind, 0) + 1

    def strange(self, what: str) -> None:
        if len(self.unexpected) < 1000:
            self.unexpected.append(what)

    @property
    def failed(self) -> bool:
        return self.lost > 0 or bool(self.unexpected)

    def line(self) -> str:
        recovery = max(self.recoveries) if self.recoveries else 0.0
        outage = ",".join(f"{kind}:{count}" for kind, count in sorted(self.outage_answers.items())) or "-"
        extra = "".join(f" {key}={value}" for key, value in self.extra.items())
        return (
            f"{self.name}: cycles={self.cycles} acknowledged={self.acknowledged} received={self.received} "
            f"lost={self.lost} duplicates={self.duplicates} max_recovery_s={recovery:.2f} "
            f"outage_answers={outage} unexpected={len(self.unexpected)}{extra}"
        )

    def finish(self) -> int:
        for what in self.unexpected[:40]:
            print(f"unexpected: {what}", file=sys.stderr)
        print(self.line(), flush=True)
        return 1 if self.failed else 0


def describe_failure(error: BaseException) -> str:
    """How a client saw a request fail without an answer (refused, reset, cut, timed out)."""
    return type(error).__name__


async def wait_for(condition: Callable[[], bool], limit_s: float, step: float = 0.05) -> bool:
    """Poll ``condition`` until it holds (True) or ``limit_s`` passes (False)."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(step)
    return True


class HttpsSubscriber:
    """An HTTPS endpoint with a throwaway CA (trustme) that records every delivery: the
    subscriber of the distribution crash loop. Runs uvicorn in a thread of this process."""

    def __init__(self, folder: Path) -> None:
        import trustme  # a development dependency, as in the tests

        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", "localhost")
        self.ca_bundle = folder / "ca.pem"
        chain, key = folder / "chain.pem", folder / "key.pem"
        ca.cert_pem.write_to_path(str(self.ca_bundle))
        cert.private_key_pem.write_to_path(str(key))
        chain.write_bytes(b"".join(blob.bytes() for blob in cert.cert_chain_pems))
        self.port = free_port()
        self.deliveries: list[tuple[str, str]] = []  # (file name, publish id), in arrival order
        self.lock = threading.Lock()
        import uvicorn

        config = uvicorn.Config(
            self._app,
            host="127.0.0.1",
            port=self.port,
            log_config=None,
            access_log=False,
            lifespan="off",
            interface="asgi3",
            ssl_certfile=str(chain),
            ssl_keyfile=str(key),
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline:
                raise TimeoutError("the HTTPS subscriber did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)

    def count(self) -> int:
        with self.lock:
            return len(self.deliveries)

    def names(self) -> set[str]:
        with self.lock:
            return {name for name, _publish_id in self.deliveries}

    async def _app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        while True:  # the body is the file; only its name and publish id are kept
            message = await receive()
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        name = scope["path"].rsplit("/", 1)[-1]
        with self.lock:
            self.deliveries.append((name, headers.get("x-bus-dr-publish-id", "")))
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def run_loop(
    doc: str | None, name: str, prefix: str, run: Callable[[Any, Path, Tally], Awaitable[int]]
) -> int:
    """A crash loop's whole life with the common arguments: a scratch directory, its ``run``, the
    summary line; the exit status (non-zero when something was lost or unexpected)."""
    args = arguments((doc or name).splitlines()[0]).parse_args()
    scratch = Scratch(prefix, args.keep)
    tally = Tally(name)
    asyncio.run(run(args, scratch.path, tally))
    status = tally.finish()
    scratch.close(failed=tally.failed)
    return status


def site(name: str, only: list[str], scratch: Path, **env: str) -> tuple[Serve, dict[str, int]]:
    """One site's ``netplatform serve`` of ``only`` on free ports, on a SQLite store and a data
    directory of its own under ``scratch``; ``env`` adds to or overrides its environment."""
    ports = {service: free_port() for service in only}
    full = {
        **{f"NETPLATFORM_{service.upper()}_PORT": str(port) for service, port in ports.items()},
        "NETPLATFORM_DATA_DIR": str(scratch / f"{name}-data"),
        "NETPLATFORM_DATABASE_URL": f"sqlite:///{scratch / f'{name}.db'}",
        "NETPLATFORM_USERS": "admin:admin",
        "NETPLATFORM_INSTANCE_NAME": name,
        "NETPLATFORM_SITE": name,
        "NETPLATFORM_HOST": "127.0.0.1",
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_LOG_LEVEL": "WARNING",
        **env,
    }
    return Serve(full, only, list(ports.values()), scratch / f"{name}.log"), ports
