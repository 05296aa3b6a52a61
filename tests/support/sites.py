"""Sites on their own stores, as ``netplatform serve`` processes (issue 38): one central site and
any number of edges, each with its own data directory and database, joined only by HTTP.

The central site runs on the test database (:func:`.databases.temporary_database`: PostgreSQL
when the suite runs on PostgreSQL, else SQLite in its data directory). An edge runs on SQLite in
its own data directory and is given what docs/operations.md ("Sites") says an edge needs: the
central site's URL (``NETPLATFORM_CENTRAL_URL``, from which it reaches central's authz and
distribution services), the platform key (every :class:`.servers.ServeProcess` has the tests'
``NETPLATFORM_SECRET_KEY``), its site name (``NETPLATFORM_SITE``) and its own database; besides
those, only its ports, its instance name and what a test adds through ``env``.

As the documented setup has it, every site runs a service on the same port; each site is a host
of its own, here a loopback address of its own (central 127.0.0.1, the edges 127.0.0.2, ...), so
the central URL is ``http://127.0.0.1`` and an edge reaches central's authz at
``http://127.0.0.1:<the authz port>``, the port its own NETPLATFORM_AUTHZ_PORT names.

Each site has its own bootstrap administrator, the default ``admin:admin`` of
``NETPLATFORM_USERS`` (configuration of that site, never replicated); identities, roles and
memberships made at central through its authz API reach every edge.

    with site_launcher(tmp_path) as sites:
        central = sites.central()
        edge = sites.edge("edge-a")
        edge.url("router")  # http://127.0.0.2:<port>
        edge.wait_synced()  # its first copy of central's directory
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from .databases import temporary_database
from .servers import ServeProcess, free_port
from .waiting import wait_until

ADMIN = ("admin", "admin")
CENTRAL_SERVICES = ("authz", "bus", "router", "distribution")
EDGE_SERVICES = ("router", "distribution")


@dataclass
class Site:
    """One site: a ``netplatform serve`` process with its ports, data directory and database."""

    name: str
    ports: dict[str, int]
    data_dir: Path
    database_url: str
    process: ServeProcess
    env: dict[str, str] = field(default_factory=dict)
    host: str = "127.0.0.1"  # the site's own loopback address

    def url(self, service: str) -> str:
        return f"http://{self.host}:{self.ports[service]}"

    def client(self, service: str, auth: tuple[str, str] | None = ADMIN, timeout: float = 30) -> httpx.Client:
        return httpx.Client(base_url=self.url(service), auth=auth, timeout=timeout)

    def health(self, service: str) -> httpx.Response:
        """``GET /health`` of one of the site's services (no credential needed)."""
        return httpx.get(f"{self.url(service)}/health", timeout=10)

    def running(self) -> bool:
        return self.process.process is not None and self.process.process.poll() is None

    def start(self) -> Site:
        """Start (or start again, on the same ports, data directory and database)."""
        self.process.start(wait_ports=list(self.ports.values()))
        return self

    def kill(self) -> None:
        """SIGKILL: whatever the process had not made durable is gone."""
        self.process.kill()

    def stop(self) -> int:
        return self.process.stop()

    def log(self) -> str:
        return self.process.log()

    def wait_synced(self, service: str | None = None, timeout: float = 30) -> None:
        """Wait until the site's replica of the central directory is current: ``/health`` of
        ``service`` (default: its first) answers 200 (UP, or DEGRADED). Central has no replica."""
        name = service or next(iter(self.ports))

        def up() -> bool:
            try:
                answer = self.health(name)
            except httpx.HTTPError:
                return False
            # DEGRADED: a background job fails beyond its bound, yet the site decides and serves.
            return answer.status_code == 200 and answer.json().get("status") in ("UP", "DEGRADED")

        wait_until(up, timeout, f"site {self.name}'s {name} UP (its replica of central's directory)")


class SiteLauncher:
    """Starts sites under one test folder; stops every one still running at the end."""

    def __init__(self, tmp_path: Path, central_database_url: str | None) -> None:
        self.tmp_path = tmp_path
        self.central_database_url = central_database_url
        self.sites: list[Site] = []
        self.central_site: Site | None = None
        # One port per service, the same at every site (each site listens on its own address).
        self.ports: dict[str, int] = {}

    def central(
        self,
        services: Iterable[str] = CENTRAL_SERVICES,
        env: Mapping[str, str] | None = None,
        name: str = "central",
    ) -> Site:
        """The central site: the authz service every edge follows, and by default the bus
        controller, a message router and a distribution node; on the test database."""
        services = tuple(services)
        if "authz" not in services:
            raise ValueError("the central site runs the authz service the edges follow")
        data_dir = self.tmp_path / f"{name}-data"
        database_url = self.central_database_url or _sqlite_in(data_dir)
        site = self._start(name, services, data_dir, database_url, dict(env or {}))
        self.central_site = site
        return site

    def edge(
        self,
        name: str,
        services: Iterable[str] = EDGE_SERVICES,
        env: Mapping[str, str] | None = None,
        central: Site | None = None,
        authz_url: str | None = None,
    ) -> Site:
        """An edge site named ``name``: its own SQLite database in its own data directory and
        its own loopback address, following the central site through ``NETPLATFORM_CENTRAL_URL``
        alone (through ``authz_url`` for authorization when given: a path to central's authz
        that the test can cut, :class:`.links.Link`)."""
        source = central or self.central_site
        if source is None:
            raise ValueError("start the central site first")
        data_dir = self.tmp_path / f"{name}-data"
        edge_env = {
            "NETPLATFORM_CENTRAL_URL": f"http://{source.host}",
            **({"NETPLATFORM_AUTHZ_URL": authz_url} if authz_url else {}),
            **(env or {}),
        }
        host = f"127.0.0.{len(self.sites) + 1}"  # central first, on 127.0.0.1
        return self._start(name, tuple(services), data_dir, _sqlite_in(data_dir), edge_env, host)

    def _start(
        self,
        name: str,
        services: tuple[str, ...],
        data_dir: Path,
        database_url: str,
        env: dict[str, str],
        host: str = "127.0.0.1",
    ) -> Site:
        for service in services:
            self.ports.setdefault(service, free_port())
        full_env = {
            # Every port of the platform, not only its own services': an edge reaches central's
            # services at these.
            **{f"NETPLATFORM_{service.upper()}_PORT": str(port) for service, port in self.ports.items()},
            "NETPLATFORM_HOST": host,
            "NETPLATFORM_DATA_DIR": str(data_dir),
            "NETPLATFORM_DATABASE_URL": database_url,
            "NETPLATFORM_SITE": name,
            "NETPLATFORM_INSTANCE_NAME": name,
            "NETPLATFORM_ACCESS_LOG": "false",
            **env,
        }
        args = [arg for service in services for arg in ("--only", service)]
        process = ServeProcess(full_env, args, log_path=self.tmp_path / f"{name}.log", host=host)
        ports = {service: self.ports[service] for service in services}
        site = Site(name, ports, data_dir, database_url, process, full_env, host)
        self.sites.append(site)
        return site.start()

    def stop(self) -> dict[str, int]:
        """Stop every site still running (SIGTERM); each one's exit code."""
        codes: dict[str, int] = {}
        for site in reversed(self.sites):
            if site.running():
                with contextlib.suppress(Exception):
                    codes[site.name] = site.stop()
        return codes


def _sqlite_in(data_dir: Path) -> str:
    return f"sqlite:///{data_dir / 'netplatform.db'}"


@contextmanager
def site_launcher(tmp_path: Path) -> Iterator[SiteLauncher]:
    """A launcher whose central site uses the test database; every site stopped at the end."""
    with ExitStack() as stack:
        launcher = SiteLauncher(tmp_path, stack.enter_context(temporary_database()))
        try:
            yield launcher
        finally:
            launcher.stop()
