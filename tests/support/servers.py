"""Real servers for tests: an app on a random port in a thread, or a whole ``netplatform serve``."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import itertools
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from netplatform.server import EmbeddedServer, bind_socket

from .keys import TEST_SECRET_KEY
from .serve_child import LISTEN_FDS

PORT_BLOCK = 1000  # ports free_port() hands out in one test process
MAX_WORKERS = 12  # xdist workers given a block of their own (gw12 shares gw0's, and so on)


def _ephemeral_low() -> int:
    """The lowest port of the kernel's ephemeral range (bind to port 0 and outgoing connections)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as ports:
            return int(ports.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _block_start() -> int:
    """Below the ephemeral range, a block per xdist worker: a port free_port() chose cannot be
    taken, between free_port() and the bind that uses it, by a server of another test binding
    port 0, by a connection, or by another worker's free_port() (issue 27: the old probe of
    port 0 handed out ephemeral ports, and a parallel test took one before its server bound it)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    number = int(worker[2:]) % MAX_WORKERS if worker[2:].isdigit() else 0
    base = max(10_000, _ephemeral_low() - MAX_WORKERS * PORT_BLOCK)
    return base + number * PORT_BLOCK


# Where in its block a process starts handing out ports: another test session on the machine
# (another checkout's pytest, whose workers have the same blocks) starts elsewhere.
_handed_out = itertools.count(random.randrange(PORT_BLOCK))
# Ports handed out by any test session of this user, one empty file each: another session skips
# them while they are fresh, so a port stays a test's while its server starts, and while a test
# has stopped its server to start it again on the same port (a SIGKILL and restart).
CLAIMS = Path(tempfile.gettempdir()) / f"netplatform-test-ports-{os.getuid()}"
CLAIM_S = 5 * 60.0  # longer than any test leaves a port it was given unbound


def free_port() -> int:
    """A port nothing listens on, for a server a test starts on a chosen port (a ``netplatform
    serve`` child, a router that comes back where a cluster points). Successive calls in one
    process give different ports, cycling through the process's block; no other test session
    on the machine is given the same port within CLAIM_S."""
    start = _block_start()
    for _ in range(PORT_BLOCK):
        port = start + next(_handed_out) % PORT_BLOCK
        if _bindable(port) and _claim(port):
            return port
    raise RuntimeError(f"no free port in {start}-{start + PORT_BLOCK - 1}")


def _claim(port: int) -> bool:
    """Take the port for this test (True), unless another test took it within CLAIM_S."""
    CLAIMS.mkdir(exist_ok=True)
    claim = CLAIMS / str(port)
    with open(CLAIMS / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one session at a time looks and claims
        with contextlib.suppress(FileNotFoundError):
            if time.time() - claim.stat().st_mtime < CLAIM_S:
                return False
        claim.touch()
    return True


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers bind
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class PromptServer(EmbeddedServer):
    """An :class:`EmbeddedServer` that stops as soon as it is told to.

    uvicorn looks at ``should_exit`` every 0.1 s, then sleeps a fixed 0.1 s after asking its
    connections to close and polls them every 0.1 s: about 0.17 s to stop a server that has
    nothing left to do, paid by each of the thousand-odd servers the suite starts (measured: half
    of the fast lane's teardown time). Here :meth:`exit` wakes the main loop at once, and the
    shutdown takes uvicorn's steps in its order but waits on each condition in short polls.
    """

    POLL_S = 0.005

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._exit: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def exit(self) -> None:
        """Ask the server to stop (from any thread)."""
        self.should_exit = True
        if self._loop is not None and self._exit is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already finished
                self._loop.call_soon_threadsafe(self._exit.set)

    async def main_loop(self) -> None:
        self._exit = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exit.wait(), 0.1)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        state = self.server_state
        await self._until(lambda: not state.connections and not state.tasks)
        for server in self.servers:
            await server.wait_closed()
        if not self.force_exit:
            await self.lifespan.shutdown()

    async def _until(self, done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + (self.config.timeout_graceful_shutdown or 30)
        # uvicorn signals neither set's emptying, so a short poll it is.
        while not done() and not self.force_exit and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(self.POLL_S)
        for task in self.server_state.tasks:  # what the grace did not see finish, as uvicorn does
            task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")


class LiveServer:
    """An ASGI app served by uvicorn on 127.0.0.1 with a port the OS picked."""

    def __init__(
        self, app: Any, *, ssl: Mapping[str, str] | None = None, also_on: Sequence[str] = ()
    ) -> None:
        self.sock = bind_socket("127.0.0.1", 0)
        self.port = int(self.sock.getsockname()[1])
        # Further loopback addresses (127.0.0.2, ...) on the same port: one server that clients
        # reach under several host names without any /etc/hosts entry.
        self.extra_socks = [bind_socket(address, self.port) for address in also_on]
        scheme = "https" if ssl else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        tls = ssl or {}
        config = uvicorn.Config(
            app,
            interface="asgi3",
            log_config=None,
            access_log=False,
            lifespan="on",
            ssl_certfile=tls.get("ssl_certfile"),
            ssl_keyfile=tls.get("ssl_keyfile"),
        )
        self.server = PromptServer(config)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            asyncio.run(self.server.serve(sockets=[self.sock, *self.extra_socks]))
        except BaseException as error:
            self.error = error

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if self.error is not None or not self.thread.is_alive():
                raise RuntimeError(f"server failed to start: {self.error!r}")
            if time.monotonic() > deadline:
                raise TimeoutError("server did not start within 30 s")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.exit()
        self.thread.join(timeout=60)
        for sock in (self.sock, *self.extra_socks):
            sock.close()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _listening(port: int, host: str = "127.0.0.1") -> socket.socket:
    """The port bound and listening here, for a child to serve on (serve_child.py)."""
    try:
        return bind_socket(host, port)
    except SystemExit as error:  # bind_socket's message for a port in use, raised as a test failure
        raise RuntimeError(f"{error}: another process took the port free_port() chose") from None


def wait_for_service(
    host: str, port: int, timeout: float = 60, process: subprocess.Popen[bytes] | None = None
) -> None:
    """Wait until a server accepts connections on the port.

    A connection to a socket that is listening but not yet served completes in its backlog, so
    an open connection says nothing. This one sends no request (none shows in an access log):
    it says it will send nothing, and a server that accepted it closes it; in the backlog, it
    hears nothing."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode} before serving port {port}")
        try:
            sock = socket.create_connection((host, port), timeout=1)
        except OSError:  # refused: not listening (yet, or any more)
            time.sleep(0.05)
            continue
        with sock:
            try:
                sock.shutdown(socket.SHUT_WR)
                sock.recv(1)
            except TimeoutError:
                continue  # in the backlog, not accepted yet: still starting
            except ConnectionResetError:
                pass  # accepted, and dropped by a server that is up
            return
    raise TimeoutError(f"port {port} was not served within {timeout} s")


class ServeProcess:
    """``netplatform serve`` in a child process with its own environment, on listening sockets
    bound here (the ports waited for) and inherited by the child (serve_child.py)."""

    def __init__(
        self,
        env: Mapping[str, str],
        args: list[str] | None = None,
        log_path: Path | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.env = {"NETPLATFORM_SECRET_KEY": TEST_SECRET_KEY, **os.environ, **env}
        self.args = args or []
        self.log_path = log_path
        self.host = host  # the loopback address its ports are bound on (sites: one per site)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, wait_ports: list[int] | None = None) -> ServeProcess:
        output = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        sockets = {port: _listening(port, self.host) for port in wait_ports or []}
        fds = ",".join(f"{port}:{sock.fileno()}" for port, sock in sockets.items())
        try:
            self.process = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("serve_child.py")), "serve", *self.args],
                env={**self.env, LISTEN_FDS: fds},
                stdout=output,
                stderr=subprocess.STDOUT,
                pass_fds=[sock.fileno() for sock in sockets.values()],
            )
        finally:
            for sock in sockets.values():
                sock.close()  # the child's copy alone: the port is free again once the child exits
        for port in sockets:
            wait_for_service(self.host, port, process=self.process)
        return self

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=30)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path and self.log_path.exists() else ""


def http_client(
    base_url: str, auth: tuple[str, str] | None = ("admin", "admin"), **kwargs: Any
) -> httpx.Client:
    return httpx.Client(base_url=base_url, auth=auth, timeout=30, **kwargs)
