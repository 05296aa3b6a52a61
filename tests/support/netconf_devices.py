"""Real NETCONF devices for tests: Debian's netconfd (yuma123) behind a private OpenSSH sshd,
each on a free port (reference netconf-deploy.md section 6).

sshd runs in a mount namespace of its own (``unshare -m``) with a tmpfs on /run (its privilege
separation directory) and, for password logins, a copy of /etc/shadow bind-mounted over the
real one that gives root the device's test password: nothing of the host is changed. netconfd
serves ``ietf-interfaces`` as a plain configuration store (without the netconfd-module-*
plug-ins, which must never be installed: they run ifconfig and hostname as root).

A missing netconfd or sshd fails the tests that need them (``.ci/netconfd`` installs both).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from ncclient import manager
from ncclient.manager import Manager

from .servers import free_port
from .waiting import wait_until

NETCONFD = Path("/usr/sbin/netconfd")
SUBSYSTEM = Path("/usr/sbin/netconf-subsystem")
SSHD = Path("/usr/sbin/sshd")
IF_NS = "urn:ietf:params:xml:ns:yang:ietf-interfaces"
BASE_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
EMPTY_CONFIG = f'<config xmlns="{BASE_NS}"/>'


def missing() -> str | None:
    """Why devices cannot be started here (None when they can)."""
    for path in (NETCONFD, SUBSYSTEM, SSHD, Path("/usr/bin/ssh-keygen"), Path("/usr/bin/unshare")):
        if not path.exists():
            return f"{path} is missing: run .ci/netconfd (installs Debian's netconfd and openssh-server)"
    if os.geteuid() != 0:
        return "the NETCONF test devices run sshd in a mount namespace of their own, which needs root"
    return None


def _keygen(path: Path) -> None:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", str(path)],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _shadow_with_root_password(password: str, target: Path) -> None:
    hashed = subprocess.run(
        ["openssl", "passwd", "-6", "-stdin"], input=password, capture_output=True, text=True, check=True
    ).stdout.strip()
    lines = Path("/etc/shadow").read_text().splitlines()
    fields = [line.split(":") for line in lines]
    rewritten = [":".join([f[0], hashed, *f[2:]]) if f[0] == "root" else ":".join(f) for f in fields]
    target.write_text("\n".join(rewritten) + "\n")
    target.chmod(0o600)


def _answers(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


class NetconfDevice:
    """One netconfd behind one sshd on 127.0.0.1:<port>, login ``root`` by password or key."""

    def __init__(self, root: Path, name: str, target: str = "candidate") -> None:
        self.name = name
        self.target = target  # netconfd's edit target: "running" announces :writable-running only
        self.dir = root / name
        self.dir.mkdir(parents=True)
        self.port = free_port()
        self.username = "root"
        self.password = "pw-" + secrets.token_urlsafe(12)
        self.processes: list[subprocess.Popen[bytes]] = []
        _keygen(self.dir / "hostkey")
        _keygen(self.dir / "clientkey")
        shutil.copy(self.dir / "clientkey.pub", self.dir / "authorized_keys")
        (self.dir / "home" / "data").mkdir(parents=True)
        (self.dir / "startup-cfg.xml").write_text(EMPTY_CONFIG + "\n")
        _shadow_with_root_password(self.password, self.dir / "shadow")

    @property
    def host_key(self) -> str:
        """The public host key, OpenSSH form without its comment."""
        return " ".join((self.dir / "hostkey.pub").read_text().split()[:2])

    @property
    def client_key(self) -> str:
        return (self.dir / "clientkey").read_text()

    @property
    def socket_path(self) -> Path:
        return self.dir / "ncxserver.sock"

    def start(self) -> NetconfDevice:
        d = self.dir
        (d / "sshd_config").write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {d}/hostkey\nPidFile none\n"
            f"AuthorizedKeysFile {d}/authorized_keys\nPermitRootLogin yes\nUsePAM yes\n"
            "PasswordAuthentication yes\nKbdInteractiveAuthentication no\nStrictModes no\n"
            "MaxStartups 100:30:200\n"
            f'Subsystem netconf "{SUBSYSTEM} --ncxserver-sockname={self.port}@{self.socket_path}"\n'
        )
        log = open(d / "netconfd.out", "wb")  # noqa: SIM115 (kept open while the process runs)
        self.processes.append(
            subprocess.Popen(
                [
                    str(NETCONFD),
                    "--superuser=root",
                    f"--port={self.port}",
                    f"--ncxserver-sockname={self.socket_path}",
                    f"--home={d}/home",
                    f"--yuma-home={d}/home",
                    "--module=iana-if-type",
                    "--module=ietf-interfaces",
                    f"--startup={d}/startup-cfg.xml",
                    f"--log={d}/netconfd.log",
                    f"--target={self.target}",
                ],
                cwd=d,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        wait_until(self.socket_path.exists, timeout=30, what=lambda: self._failed("netconfd", "netconfd.out"))
        script = (
            "mount -t tmpfs tmpfs /run && mkdir -m755 /run/sshd && "
            f"mount --bind {d}/shadow /etc/shadow && exec {SSHD} -D -e -f {d}/sshd_config"
        )
        sshd_log = open(d / "sshd.out", "wb")  # noqa: SIM115
        self.processes.append(
            subprocess.Popen(
                ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                cwd=d,
                stdout=sshd_log,
                stderr=subprocess.STDOUT,
            )
        )
        wait_until(lambda: _answers(self.port), timeout=30, what=lambda: self._failed("sshd", "sshd.out"))
        return self

    def _failed(self, what: str, log: str) -> str:
        """What a server that did not come up said (its output and, for netconfd, its log)."""
        said = (self.dir / log).read_text(errors="replace")[-2000:]
        if what == "netconfd" and (self.dir / "netconfd.log").exists():
            said += (self.dir / "netconfd.log").read_text(errors="replace")[-2000:]
        return f"{what} of {self.name} on port {self.port} to start; it said: {said!r}"

    def terminate(self) -> None:
        """SIGTERM to its processes without waiting (netconfd takes about a second to exit)."""
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self.processes.clear()

    def session(self) -> Manager:
        """The test's own NETCONF session (key login, the known host key)."""
        return manager.connect(
            host="127.0.0.1",
            port=self.port,
            username=self.username,
            key_filename=str(self.dir / "clientkey"),
            hostkey_verify=False,
            allow_agent=False,
            look_for_keys=False,
            timeout=20,
        )

    def logins(self) -> int:
        """How many logins sshd accepted so far (its log)."""
        return (self.dir / "sshd.out").read_text(errors="replace").count("Accepted ")

    def running(self) -> str:
        with self.session() as m:
            return str(m.get_config(source="running").data_xml)

    def reset(self) -> None:
        """Running back to the empty configuration (ietf-interfaces removed)."""
        remove = (
            f'<config xmlns="{BASE_NS}"><interfaces xmlns="{IF_NS}" '
            f'xmlns:nc="{BASE_NS}" nc:operation="remove"/></config>'
        )
        with self.session() as m:
            m.lock(target=self.target)
            try:
                if self.target == "candidate":
                    m.discard_changes()
                m.edit_config(remove, target=self.target)
                if self.target == "candidate":
                    m.commit()
            finally:
                m.unlock(target=self.target)

    def inventory_entry(self, name: str | None = None, **changes: object) -> dict[str, object]:
        """The body that adds this device to the inventory, by password, its host key pinned."""
        body: dict[str, object] = {
            "name": name or self.name,
            "host": "127.0.0.1",
            "port": self.port,
            "username": self.username,
            "password": self.password,
            "hostKey": self.host_key,
            "connectTimeout": 10,
            "replyTimeout": 20,
        }
        body.update(changes)
        return body


@contextlib.contextmanager
def netconf_devices(count: int, target: str = "candidate") -> Iterator[list[NetconfDevice]]:
    """``count`` devices started, stopped at the end with their directories."""
    root = Path(tempfile.mkdtemp(prefix="netplatform-netconf-"))
    devices: list[NetconfDevice] = []
    try:
        for index in range(count):
            devices.append(NetconfDevice(root, f"dev{index}", target).start())
        yield devices
    finally:
        for device in devices:  # all told first, so their exits overlap (issue 40: 1 s each)
            device.terminate()
        for device in devices:
            device.stop()
        shutil.rmtree(root, ignore_errors=True)
        with contextlib.suppress(OSError):
            (Path.home() / ".yuma").rmdir()  # netconfd leaves it, empty


def silent_port() -> tuple[socket.socket, int]:
    """A port that accepts connections and never says a word (a device that hangs)."""
    port = free_port()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    return listener, port


def wait_running(device: NetconfDevice, condition: object, timeout: float = 30) -> None:
    """Until ``condition(running XML)`` holds."""
    assert callable(condition)
    deadline = time.monotonic() + timeout
    wait_until(lambda: condition(device.running()), timeout=max(0.1, deadline - time.monotonic()))
