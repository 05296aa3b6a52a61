"""A NETCONF device over real SSH (paramiko's server side) that forgets messages on purpose.

netconfd drops a message that reaches it together with the client's hello, but only when the
two happen to arrive in one read (under load, a few sessions in a hundred). This device drops
the first ``drop`` messages after the hello every time, so what the platform does about it is
tested deterministically. It speaks base:1.0 framing and answers every other RPC: ``<data/>``
for reads, ``<ok/>`` for anything else. ``received`` lists the operations it read, dropped or not.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Iterator

import paramiko

EOM = b"]]>]]>"
HELLO = (
    b'<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities>'
    b"<capability>urn:ietf:params:netconf:base:1.0</capability>"
    b"<capability>urn:ietf:params:netconf:capability:candidate:1.0</capability>"
    b"</capabilities><session-id>7</session-id></hello>"
)
_OPERATION = re.compile(rb"<(?:\w+:)?rpc\b[^>]*>\s*<(?:\w+:)?([\w-]+)")
_MESSAGE_ID = re.compile(rb'message-id="([^"]+)"')


class _Server(paramiko.ServerInterface):  # type: ignore[misc]  # paramiko is untyped
    def __init__(self, password: str) -> None:
        self.password = password

    def get_allowed_auths(self, username: str) -> str:
        return "password"

    def check_auth_password(self, username: str, password: str) -> int:
        ok = username == "root" and password == self.password
        return int(paramiko.AUTH_SUCCESSFUL if ok else paramiko.AUTH_FAILED)

    def check_channel_request(self, kind: str, chanid: int) -> int:
        refused = paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED
        return int(paramiko.OPEN_SUCCEEDED if kind == "session" else refused)

    def check_channel_subsystem_request(self, channel: paramiko.Channel, name: str) -> bool:
        return name == "netconf"


class ForgetfulDevice:
    """Listens on 127.0.0.1:<port>; ``drop`` messages after each session's hello go unanswered."""

    def __init__(self, drop: int) -> None:
        self.drop = drop
        self.password = "forgetful-pw"
        self.key = paramiko.ECDSAKey.generate()
        self.received: list[str] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def host_key(self) -> str:
        return f"{self.key.get_name()} {self.key.get_base64()}"

    def close(self) -> None:
        self._stopped.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        transport = paramiko.Transport(connection)
        transport.add_server_key(self.key)
        with contextlib.suppress(Exception), contextlib.closing(transport):
            transport.start_server(server=_Server(self.password))
            channel = transport.accept(10)
            if channel is None:
                return
            channel.sendall(HELLO + EOM)
            messages = _messages(channel)
            next(messages)  # the client's hello
            for index, message in enumerate(messages):
                operation = _OPERATION.search(message)
                name = operation.group(1).decode() if operation else "?"
                self.received.append(name)
                if index >= self.drop:
                    channel.sendall(_reply(message, name) + EOM)
                if name == "close-session":
                    return


def _messages(channel: paramiko.Channel) -> Iterator[bytes]:
    buffer = b""
    while True:
        while EOM not in buffer:
            data = channel.recv(65536)
            if not data:
                return
            buffer += data
        message, buffer = buffer.split(EOM, 1)
        yield message


def _reply(message: bytes, operation: str) -> bytes:
    found = _MESSAGE_ID.search(message)
    message_id = found.group(1) if found else b"?"
    body = b"<data/>" if operation in ("get", "get-config") else b"<ok/>"
    return b'<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="%s">%s</rpc-reply>' % (
        message_id,
        body,
    )


@contextlib.contextmanager
def forgetful_device(drop: int) -> Iterator[ForgetfulDevice]:
    device = ForgetfulDevice(drop)
    try:
        yield device
    finally:
        device.close()
