"""A NETCONF session with an inventory device over SSH (ncclient): the device's pinned host key
checked before anything is sent, the device's own credentials, every wait bounded.

ncclient does the protocol; three of its defaults do not fit a platform that reaches devices
for others, so :class:`_DeviceSSH` changes them:

* host keys: ncclient consults the process user's ``~/.ssh/known_hosts``; here only the key
  pinned in the inventory counts (a key that differs, or none pinned, stops the connection
  after the key exchange, before the credentials are sent: RFC 6242 section 6);
* credentials: ncclient reads private keys from files and tries agents and ``~/.ssh``; here the
  device's password or its private key, held in memory only;
* the connection timeout: ncclient bounds the TCP connect and the hello, but paramiko waits
  15 s for a silent peer's SSH banner and 30 s for authentication whatever it is given; a
  watchdog shuts the socket when the device's connection timeout has passed, so a port that
  accepts and stays silent fails within that bound.

One device behaviour is handled here too: netconfd (yuma123) silently drops a message that
reaches it together with the client's ``<hello>`` (seen under load: about 3 sessions in 100,
the first RPC never applied and never answered, later ones answered). Nothing in the protocol
says when the device has taken the hello, so the session's first message is a probe that
changes nothing and is sent again until the device answers it (any reply, an rpc-error too,
proves it reads the session's messages): ``<get-config>`` of running with an empty subtree
filter, which selects nothing (RFC 6241 section 6.4.2). Only then does the caller's first
operation (a lock, usually) go out, so it is never the message that is lost. The same probe,
sent once with a short wait (:func:`alive`), proves a session kept open between deploys
(:mod:`.sessions`) still answers before it is used again.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import paramiko
from lxml import etree
from ncclient.devices.default import DefaultDeviceHandler
from ncclient.manager import Manager
from ncclient.operations import RaiseMode, RPCError, TimeoutExpiredError
from ncclient.transport.errors import AuthenticationError, SSHUnknownHostError, TransportError
from ncclient.transport.session import END_DELIM, MSG_DELIM, NetconfBase
from ncclient.transport.ssh import SSHSession

log = logging.getLogger(__name__)

_KEY_CLASSES: tuple[type[paramiko.PKey], ...] = (paramiko.Ed25519Key, paramiko.ECDSAKey, paramiko.RSAKey)


class NetconfFailure(Exception):
    """Talking to a device failed; the message says where and why (never a secret)."""

    def __init__(self, message: str, *, kind: str = "error", presented_key: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.presented_key = presented_key


@dataclass(frozen=True)
class DeviceAccess:
    """What connecting to one device takes, its secrets opened (never logged, never stored)."""

    name: str
    host: str
    port: int
    username: str
    password: str | None
    private_key: str | None
    host_key: str | None
    connect_timeout_s: float
    reply_timeout_s: float

    @property
    def where(self) -> str:
        return f"device({self.name}) {self.host}:{self.port}"


def fingerprint(host_key: str) -> str:
    """The OpenSSH SHA256 fingerprint of a key in OpenSSH form (``ssh-ed25519 AAAA...``)."""
    blob = base64.b64decode(host_key.split()[1])
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode("ascii").rstrip("=")
    return f"SHA256:{digest}"


def parse_host_key(text: str) -> str:
    """A public key in OpenSSH form, checked and normalised to ``type base64`` (ValueError if not)."""
    parts = text.strip().split()
    if len(parts) < 2:
        raise ValueError("a host key is an OpenSSH public key: '<type> <base64>' (as in ssh_host_*.pub)")
    key_type, data = parts[0], parts[1]
    try:
        blob = base64.b64decode(data, validate=True)
        key = paramiko.PKey.from_type_string(key_type, blob)
    except Exception:
        raise ValueError(f"the host key is not a usable {key_type} public key") from None
    return f"{key.get_name()} {key.get_base64()}"


def load_private_key(text: str) -> paramiko.PKey:
    """A private key in OpenSSH or PEM form, unencrypted (ValueError if not)."""
    for key_class in _KEY_CLASSES:
        try:
            return key_class.from_private_key(io.StringIO(text))
        except (paramiko.SSHException, ValueError, TypeError, IndexError):
            continue
    raise ValueError("the private key is not an unencrypted Ed25519, ECDSA or RSA key in OpenSSH or PEM form")


def _openssh(key: paramiko.PKey) -> str:
    return f"{key.get_name()} {key.get_base64()}"


class _DeviceSSH(SSHSession):  # type: ignore[misc]  # ncclient is untyped
    """ncclient's SSH session with the device's own key and credentials only (module doc)."""

    def __init__(self, access: DeviceAccess) -> None:
        super().__init__(DefaultDeviceHandler())
        self.access = access
        self.presented: str | None = None
        self._write_lock = threading.Lock()

    def load_known_hosts(self, filename: str | None = None) -> None:
        """Never the process user's known_hosts: the inventory's pinned key alone decides."""

    def unknown_host(self, host: str, md5_fingerprint: str) -> bool:
        """Called by ncclient when the presented key is not the pinned one: remember it, refuse."""
        self.presented = _openssh(self._transport.get_remote_server_key())
        return False

    def send(self, message: str) -> None:
        """Written at once, in the caller's thread. ncclient queues a message for its reader
        thread, which looks at the queue between 0.1 s waits for the device: about 100 ms per RPC
        (over 1 s of a deploy's 2). paramiko channels may be written while another thread reads."""
        if not self.connected:
            raise TransportError("Not connected to NETCONF server")
        data = message.encode()
        if self._base == NetconfBase.BASE_11:
            data = b"\n#%d\n%s%s" % (len(data), data, END_DELIM)
        else:
            data += MSG_DELIM
        with self._write_lock:
            self._channel.sendall(data)

    def _auth(self, username: str, password: Any, key_filenames: Any, allow_agent: Any, look: Any) -> None:
        access = self.access
        try:
            if access.private_key is not None:
                self._transport.auth_publickey(username, load_private_key(access.private_key))
            else:
                self._transport.auth_password(username, access.password or "")
        except paramiko.AuthenticationException:
            raise AuthenticationError(f"authentication as {username} failed") from None


def _connected_socket(access: DeviceAccess) -> socket.socket:
    try:
        return socket.create_connection((access.host, access.port), timeout=access.connect_timeout_s)
    except TimeoutError:
        raise _timed_out(access) from None
    except OSError as error:
        raise NetconfFailure(
            f"{access.where}: cannot connect: {error.strerror or error}", kind="unreachable"
        ) from None


def _timed_out(access: DeviceAccess) -> NetconfFailure:
    return NetconfFailure(
        f"{access.where}: no NETCONF session within the connection timeout ({access.connect_timeout_s:g} s)",
        kind="timeout",
    )


class _Watchdog:
    """Shuts the socket when the connection timeout has passed and the session is not up."""

    def __init__(self, sock: socket.socket, seconds: float) -> None:
        self.sock = sock
        self.fired = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        with contextlib.suppress(OSError):  # wakes the transport thread blocked reading
            self.sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()


def open_session(access: DeviceAccess, *, verify: bool = True) -> tuple[Manager, float]:
    """A NETCONF session with the device and the seconds it took. ``verify=False`` (the check
    of a device without a pinned key) still stops before authenticating: the presented key is
    in the NetconfFailure it raises."""
    started = time.monotonic()
    sock = _connected_socket(access)
    session = _DeviceSSH(access)
    pinned = access.host_key.split()[1] if access.host_key else None
    with _Watchdog(sock, max(0.0, access.connect_timeout_s - (time.monotonic() - started))) as watchdog:
        try:
            session.connect(
                host=access.host,
                port=access.port,
                sock=sock,
                timeout=access.connect_timeout_s,
                username=access.username,
                hostkey_verify=True,
                hostkey_b64=pinned if verify else None,
                unknown_host_cb=session.unknown_host,
                allow_agent=False,
                look_for_keys=False,
            )
        except SSHUnknownHostError:
            _drop(session, sock)
            raise _key_refused(access, session.presented) from None
        except AuthenticationError as error:
            _drop(session, sock)
            raise NetconfFailure(f"{access.where}: {error}", kind="authentication") from None
        except (TransportError, paramiko.SSHException, OSError, EOFError) as error:
            _drop(session, sock)
            if watchdog.fired:
                raise _timed_out(access) from None
            if "no acceptable host key" in str(error):  # the device's key is of another type
                raise _key_refused(access, None) from None
            raise NetconfFailure(f"{access.where}: SSH: {error}", kind="transport") from None
    manager = Manager(session, session._device_handler, timeout=access.reply_timeout_s)
    manager.raise_mode = RaiseMode.ERRORS
    try:
        _first_reply(manager, access, deadline=started + access.connect_timeout_s)
    except NetconfFailure:
        close(manager)
        raise
    return manager, time.monotonic() - started


# RFC 6241 section 6.4.2: "An empty filter will select nothing".
_PROBE = '<get-config><source><running/></source><filter type="subtree"/></get-config>'
_PROBE_FIRST_WAIT_S = 0.5


def _first_reply(manager: Manager, access: DeviceAccess, *, deadline: float) -> None:
    """The probe sent until the device answers it, waits doubling from half a second, all
    within the connection timeout (module doc: a device may drop what comes with the hello)."""
    wait = _PROBE_FIRST_WAIT_S
    while (left := deadline - time.monotonic()) > 0:
        try:
            _probe(manager, access, min(wait, left))
            return
        except TimeoutExpiredError:
            log.info("%s: no answer to the session's probe within %g s; sent again", access.where, wait)
            wait *= 2
        except (TransportError, OSError) as error:
            raise NetconfFailure(f"{access.where}: SSH: {error}", kind="transport") from None
    raise _timed_out(access)


def _probe(manager: Manager, access: DeviceAccess, wait_s: float) -> None:
    """One probe, answered within ``wait_s`` (an rpc-error is an answer too: the device reads
    this session's messages); raises what the wait or the transport raised. The manager's own
    reply timeout is back in place afterwards."""
    manager.timeout = wait_s
    try:
        manager.dispatch(etree.fromstring(_PROBE))
    except RPCError:
        pass
    finally:
        manager.timeout = access.reply_timeout_s


_PROBE_ALIVE_WAIT_S = 2.0


def alive(manager: Manager, access: DeviceAccess) -> bool:
    """Whether a session kept open still answers: the probe once, a short wait (a session the
    device dropped answers nothing, or its transport is already closed)."""
    if not manager.connected:
        return False
    try:
        _probe(manager, access, min(_PROBE_ALIVE_WAIT_S, access.reply_timeout_s))
    except Exception as error:  # a timeout, a closed transport: the session is not used again
        log.info("%s: the kept session did not answer its probe: %r", access.where, error)
        return False
    return True


def _drop(session: _DeviceSSH, sock: socket.socket) -> None:
    """The transport stopped before its socket is closed (else its thread reads a closed one)."""
    transport = getattr(session, "_transport", None)
    if transport is not None:
        transport.close()
    sock.close()


def _key_refused(access: DeviceAccess, presented: str | None) -> NetconfFailure:
    seen = f" (it presents {fingerprint(presented)})" if presented else ""
    if not access.host_key:
        message = f"{access.where}: no host key is pinned for this device{seen}; nothing was sent"
    else:
        message = (
            f"{access.where}: the device's host key differs from the pinned key "
            f"{fingerprint(access.host_key)}{seen}; nothing was sent. "
            "An administrator must trust the new key"
        )
    return NetconfFailure(message, kind="host-key", presented_key=presented)


def presented_key(access: DeviceAccess) -> str:
    """The host key the device presents now (a connection that stops after the key exchange)."""
    try:
        manager, _ = open_session(access, verify=False)
    except NetconfFailure as failure:
        if failure.presented_key is None:
            raise
        return failure.presented_key
    manager.close_session()  # unreachable in practice: verify=False never authenticates
    raise NetconfFailure(f"{access.where}: the device accepted a session without a key check")


@contextmanager
def netconf(access: DeviceAccess) -> Iterator[Manager]:
    """A session closed at the end (close-session, else the SSH connection dropped)."""
    manager, _ = open_session(access)
    try:
        yield manager
    finally:
        close(manager)


def close(manager: Manager) -> None:
    try:
        if manager.connected:
            manager.close_session()
    except Exception:  # the session is going away whatever the device answers
        log.debug("close-session failed", exc_info=True)
    finally:
        try:
            manager._session.close()
        except Exception:
            log.debug("closing the SSH transport failed", exc_info=True)


def rpc_failure(access: DeviceAccess, operation: str, error: Exception) -> NetconfFailure:
    """What a failed RPC becomes: the device's rpc-error (tag, path, message), or the timeout."""
    if isinstance(error, RPCError):
        errors = getattr(error, "errors", None) or [error]
        described = "; ".join(_describe(item) for item in errors)
        return NetconfFailure(
            f"{access.where}: {operation} failed: {described}", kind=str(error.tag or "rpc-error")
        )
    if isinstance(error, TimeoutExpiredError):
        return NetconfFailure(
            f"{access.where}: {operation}: no reply within the reply timeout ({access.reply_timeout_s:g} s)",
            kind="timeout",
        )
    return NetconfFailure(f"{access.where}: {operation}: {error}", kind="transport")


def _describe(error: Any) -> str:
    parts = [f"rpc-error {error.tag or '?'}"]
    if error.path:
        parts.append(f"at {error.path.strip()}")
    if error.message:
        parts.append(f": {error.message.strip()}")
    return " ".join(parts).replace(" :", ":")
