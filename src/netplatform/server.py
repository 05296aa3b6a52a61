"""Run several service apps in one process, one event loop, one port each; or N such processes.

Listening sockets are bound before anything starts, so a taken port fails fast with a clear
message. SIGTERM and SIGINT ask every server to stop accepting, let in-flight requests finish
(up to ``graceful_shutdown_s``), then run each app's shutdown; a second SIGINT forces the exit.

With ``workers > 1`` the parent applies migrations, binds every port once and starts that many
worker processes (spawned, not forked: no engine or thread crosses the fork) that all accept on
the same sockets, so both cores serve every port. Each worker is an instance in the scale-out
sense, with its own instance name (``<name>-w<i>``) for publish ids and delivery claims; the
parent forwards stop signals, and restarts a worker that died without being asked to.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import math
import multiprocessing
import signal
import socket
import time
from collections.abc import Generator, Iterable, Mapping, Sequence
from contextlib import contextmanager
from multiprocessing.process import BaseProcess

import uvicorn

from .access.key_check import verify_platform_key
from .logs import configure_logging, stop_logging
from .services import create_service_app
from .settings import Settings
from .store.migrate import upgrade
from .web.longpoll import process_stopping

log = logging.getLogger("netplatform")


class EmbeddedServer(uvicorn.Server):
    """A uvicorn server that leaves signal handling to its owner (several run in one loop), and
    says when it has started: its app's lifespan done, its socket accepting."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:  # not when the lifespan failed (the server is exiting then)
            self.ready.set()


GC_THRESHOLDS = (10_000, 10, 10)
"""Young collections every 10,000 net allocations instead of 700: a request allocates hundreds
of objects, and each collection it triggers walks the young generation again."""


async def freeze_when_started(servers: Iterable[EmbeddedServer]) -> None:
    """Once every server has started, take the heap built so far out of the collector's sight."""
    await asyncio.gather(*(server.ready.wait() for server in servers))
    freeze_heap()


def freeze_heap() -> None:
    """Collect once, freeze what survives, and make collections rarer.

    Started, the all-in-one process holds a few hundred thousand objects that live as long as
    it does (modules, the apps and their routes, pydantic and SQLAlchemy models, preloaded
    catalogs). A full collection walks every one of them, on the event loop thread: measured at
    190-440 ms each under load, during which no request of any service was served. Frozen
    objects move to a permanent generation that collections skip, so a full collection walks
    only what was allocated since; the collection here is the last to walk all of it, at start-up.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    log.debug("heap frozen: %d objects out of the collector's sight", gc.get_freeze_count())


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this: without it, a response written as headers then body
    # waits on the client's delayed ACK (about 40 ms per request on keep-alive connections).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise SystemExit(f"cannot listen on {host}:{port}: {error.strerror}") from error
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def build_server(name: str, settings: Settings) -> EmbeddedServer:
    config = uvicorn.Config(
        create_service_app(name, settings),
        log_config=None,
        access_log=False,
        lifespan="on",
        # uvicorn's annotation says int; it only hands the value to asyncio's wait_for.
        timeout_graceful_shutdown=math.ceil(settings.graceful_shutdown_s),
        ssl_certfile=str(settings.tls_cert) if settings.tls_cert else None,
        ssl_keyfile=str(settings.tls_key) if settings.tls_key else None,
        server_header=False,
        # uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise, which let any
        # local process claim any address (a feed's endpoint_addrs, the throttle). Only the
        # proxies NETPLATFORM_TRUSTED_PROXIES names are believed; none by default.
        proxy_headers=bool(settings.trusted_proxy_list),
        forwarded_allow_ips=settings.trusted_proxy_list or None,
    )
    return EmbeddedServer(config)


async def serve(settings: Settings, services: Sequence[str]) -> None:
    """One process: migrate, bind every port, serve until a stop signal."""
    await serve_on(settings, services, prepare=True)


async def serve_on(
    settings: Settings,
    services: Sequence[str],
    *,
    prepare: bool,
    sockets: Mapping[str, socket.socket] | None = None,
) -> None:
    """Serve ``services``; ``prepare`` migrates and binds first (a worker gets ``sockets`` instead)."""
    servers: dict[str, EmbeddedServer] = {}
    stopping: list[signal.Signals] = []

    def request_stop(sig: signal.Signals) -> None:
        stopping.append(sig)
        process_stopping()  # open long polls answer now rather than hold the graceful stop
        for server in servers.values():
            if server.should_exit and sig == signal.SIGINT:
                server.force_exit = True
            server.should_exit = True

    # Handlers first: a signal that arrives while we start still means "stop cleanly".
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, request_stop, sig)
    if prepare:
        await asyncio.to_thread(prepare_store, settings)
    servers.update({name: build_server(name, settings) for name in services})
    if sockets is None:
        sockets = bind_all(settings, services)
    if stopping:
        request_stop(stopping[-1])
    scheme = "https" if settings.tls_cert else "http"
    for name, sock in sockets.items():
        host, port = sock.getsockname()[:2]
        log.info("%s listening on %s://%s:%d", name, scheme, host, port)
    freezing = asyncio.create_task(freeze_when_started(servers.values()))
    try:
        await asyncio.gather(*(servers[name].serve(sockets=[sockets[name]]) for name in services))
    finally:
        freezing.cancel()


def prepare_store(settings: Settings) -> None:
    upgrade(settings)
    verify_platform_key(settings)
    warn_of_default_credentials(settings)


def warn_of_default_credentials(settings: Settings) -> None:
    """A warning whenever the bootstrap administrator's password is a well-known default, whatever
    other entries NETPLATFORM_USERS lists."""
    if settings.uses_default_users:
        log.warning("NETPLATFORM_USERS is not set: the default admin:admin credentials are in use")
    elif settings.administrator_password_is_default:
        name = settings.first_user()[0]
        log.warning(
            "the bootstrap administrator %r (the first NETPLATFORM_USERS entry) has a well-known default "
            "password: set a long random one",
            name,
        )


def bind_all(settings: Settings, services: Sequence[str]) -> dict[str, socket.socket]:
    return {name: bind_socket(settings.host, settings.port_of(name)) for name in services}


# --- several worker processes -----------------------------------------------------------------


def run_workers(settings: Settings, services: Sequence[str], workers: int) -> None:
    """Migrate and bind here, then keep ``workers`` processes serving the bound sockets."""
    prepare_store(settings)
    sockets = bind_all(settings, services)
    context = multiprocessing.get_context("spawn")
    stop_requested: list[int] = []

    def start(index: int) -> BaseProcess:
        named = settings.model_copy(update={"instance_name": f"{settings.instance_name}-w{index}"})
        process = context.Process(
            target=_worker_main, args=(named, list(services), sockets), name=f"netplatform-w{index}"
        )
        process.start()
        return process

    def forward(signum: int, _frame: object) -> None:
        stop_requested.append(signum)
        for process in processes:
            if process.pid is not None and process.is_alive():
                process.kill() if len(stop_requested) > 1 and signum == signal.SIGINT else process.terminate()

    processes = [start(index) for index in range(workers)]
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    log.info("serving with %d worker processes", workers)
    while any(process.is_alive() for process in processes):
        time.sleep(0.2)
        for index, process in enumerate(processes):
            if not stop_requested and not process.is_alive():
                log.error("worker %d exited with %s; starting it again", index, process.exitcode)
                time.sleep(1.0)
                processes[index] = start(index)
    for sock in sockets.values():
        sock.close()


def _worker_main(settings: Settings, services: list[str], sockets: dict[str, socket.socket]) -> None:
    configure_logging(settings)
    try:
        asyncio.run(serve_on(settings, services, prepare=False, sockets=sockets))
    finally:
        stop_logging()  # every queued line out before the worker ends
