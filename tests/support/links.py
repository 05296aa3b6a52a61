"""A network path between two processes that a test can cut and restore: a TCP relay on a port of
its own to a target port. Cut, it closes every connection it carries and refuses new ones (the
port is not listened on), as a partition between two sites would look to their HTTP clients;
restored, it listens on the same port again."""

from __future__ import annotations

import contextlib
import select
import socket
import threading

from .servers import _listening, free_port

CHUNK = 65536


class Link:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.target = (host, target_port)
        self.port = free_port()
        self._server: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Link:
        """Listen (again) on the link's port."""
        server = _listening(self.port)
        server.setblocking(True)  # bound as servers bind (non-blocking); accepted here in a thread
        self._server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()
        return self

    def cut(self) -> None:
        """Stop listening and close every connection the link carries."""
        server, self._server = self._server, None
        if server is not None:
            with contextlib.suppress(OSError):
                server.shutdown(socket.SHUT_RDWR)
            server.close()
        with self._lock:
            carried, self._open = self._open, set()
        for sock in carried:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                near, _address = server.accept()
            except OSError:
                return  # cut
            try:
                far = socket.create_connection(self.target, timeout=5)
            except OSError:
                near.close()
                continue
            with self._lock:
                self._open.update((near, far))
            threading.Thread(target=self._pump, args=(near, far), daemon=True).start()

    def _pump(self, near: socket.socket, far: socket.socket) -> None:
        peers = {near: far, far: near}
        try:
            while True:
                readable, _, _ = select.select(list(peers), [], [], 1.0)
                for sock in readable:
                    data = sock.recv(CHUNK)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except (OSError, ValueError):
            return  # cut, or a side closed
        finally:
            with self._lock:
                self._open.difference_update((near, far))
            for sock in (near, far):
                sock.close()
