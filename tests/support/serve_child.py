"""``netplatform`` in a ServeProcess child, on listening sockets its parent bound and passed down.

The parent binds every port it waits for before it starts this process and hands the sockets
over as inherited file descriptors (NETPLATFORM_TEST_LISTEN_FDS, ``port:fd`` pairs): the port
is this child's from the parent's bind on, so no other process can take it while the child
imports and migrates, and a port another process took fails in the parent, never as a test
talking to that other process's service (a 404 "from a different service"). Everything else
is ``netplatform`` as its console script runs it; a port not passed down is bound as usual.
"""

from __future__ import annotations

import os
import socket

from netplatform import server
from netplatform.cli import main

try:  # run as a script (its folder on the path) or imported as tests.support.serve_child
    from hashing import hash_cheaply  # type: ignore[import-not-found]
except ImportError:
    from .hashing import hash_cheaply

LISTEN_FDS = "NETPLATFORM_TEST_LISTEN_FDS"


def inherited_sockets(spec: str) -> dict[int, socket.socket]:
    sockets: dict[int, socket.socket] = {}
    for pair in filter(None, spec.split(",")):
        port, fd = pair.split(":")
        sockets[int(port)] = socket.socket(fileno=int(fd))
    return sockets


def serve_inherited(sockets: dict[int, socket.socket]) -> None:
    """Make the server take the socket of a port passed down instead of binding it again."""
    bind = server.bind_socket

    def bind_socket(host: str, port: int) -> socket.socket:
        sock = sockets.get(port)
        if sock is not None and sock.getsockname()[0] == host:
            return sockets.pop(port)
        return bind(host, port)

    server.bind_socket = bind_socket


if __name__ == "__main__":
    hash_cheaply()  # as the test process does (hashing.py)
    serve_inherited(inherited_sockets(os.environ.pop(LISTEN_FDS, "")))
    main()
