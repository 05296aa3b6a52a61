"""Run several service apps in one process, one event loop, one port each.

Listening sockets are bound before anything starts, so a taken port fails fast with a clear
message. SIGTERM and SIGINT ask every server to stop accepting, let in-flight requests finish
(up to ``graceful_shutdown_s``), then run each app's shutdown; a second SIGINT forces the exit.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from collections.abc import Generator, Sequence
from contextlib import contextmanager

import uvicorn

from .services import create_service_app
from .settings import Settings
from .store.migrate import upgrade

log = logging.getLogger("netplatform")


class EmbeddedServer(uvicorn.Server):
    """A uvicorn server that leaves signal handling to its owner (several run in one loop)."""

    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


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
        timeout_graceful_shutdown=settings.graceful_shutdown_s,
        ssl_certfile=str(settings.tls_cert) if settings.tls_cert else None,
        ssl_keyfile=str(settings.tls_key) if settings.tls_key else None,
        server_header=False,
    )
    return EmbeddedServer(config)


async def serve(settings: Settings, services: Sequence[str]) -> None:
    servers: dict[str, EmbeddedServer] = {}
    stopping: list[signal.Signals] = []

    def request_stop(sig: signal.Signals) -> None:
        stopping.append(sig)
        for server in servers.values():
            if server.should_exit and sig == signal.SIGINT:
                server.force_exit = True
            server.should_exit = True

    # Handlers first: a signal that arrives while we start still means "stop cleanly".
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, request_stop, sig)
    await asyncio.to_thread(upgrade, settings)
    if settings.uses_default_users:
        log.warning("NETPLATFORM_USERS is not set: the default admin:admin credentials are in use")
    servers.update({name: build_server(name, settings) for name in services})
    sockets = {name: bind_socket(settings.host, settings.port_of(name)) for name in services}
    if stopping:
        request_stop(stopping[-1])
    scheme = "https" if settings.tls_cert else "http"
    for name, sock in sockets.items():
        host, port = sock.getsockname()[:2]
        log.info("%s listening on %s://%s:%d", name, scheme, host, port)
    await asyncio.gather(*(servers[name].serve(sockets=[sockets[name]]) for name in services))
