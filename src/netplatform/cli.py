"""The ``netplatform`` command: serve the services, manage the database, print the version."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from . import __version__
from . import floors as floor_plan
from .logs import configure_logging, stop_logging
from .permissions_table import markdown, replace_table
from .settings import SERVED_NAMES, Settings

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
db_app = typer.Typer(no_args_is_help=True, help="Database schema management.")
app.add_typer(db_app, name="db")
secrets_app = typer.Typer(no_args_is_help=True, help="The platform key: sealed secrets and their rotation.")
app.add_typer(secrets_app, name="secrets")


def _describe(problem: Any) -> str:
    """``NETPLATFORM_<FIELD>: message``, or the message alone for a rule over several fields."""
    field = "_".join(map(str, problem["loc"])).upper()
    message = str(problem.get("ctx", {}).get("error") or problem["msg"])  # without "Value error, "
    return f"NETPLATFORM_{field}: {message}" if field else message


def _load_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as error:
        problems = "; ".join(_describe(problem) for problem in error.errors())
        typer.echo(f"invalid configuration: {problems}", err=True)
        raise typer.Exit(2) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"netplatform {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """netplatform: blueprint catalog, file distribution, bus controller, policy design, config tree,
    message router."""


@app.command()
def permissions(
    write: Annotated[
        Path | None,
        typer.Option(
            "--write", help="Replace the table between the markers of this page (docs/security.md)."
        ),
    ] = None,
) -> None:
    """Print every operation of every service with the permission it needs (a Markdown table)."""
    table = markdown()
    if write is None:
        typer.echo(table, nl=False)
        return
    write.write_text(replace_table(write.read_text(), table))


@app.command()
def floors(
    write: Annotated[
        Path | None,
        typer.Option(
            "--write", help="Replace the floors section between the markers of this page (DESIGN.md)."
        ),
    ] = None,
) -> None:
    """Print the floors of the code (src/netplatform/floors.py) as DESIGN.md shows them."""
    section = floor_plan.render()
    if write is None:
        typer.echo(section, nl=False)
        return
    write.write_text(floor_plan.replace_section(write.read_text(), section))


@app.command()
def serve(
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help=f"Start only this service (repeatable): {', '.join(SERVED_NAMES)}."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Worker processes sharing every port (default NETPLATFORM_WORKERS, 1).",
        ),
    ] = None,
) -> None:
    """Start the services (all of them unless --only is given), each on its own port."""
    from .server import run_workers
    from .server import serve as run_servers
    from .store.secrets import SecretKeyError

    selected = list(dict.fromkeys(only)) if only else list(SERVED_NAMES)
    unknown = [name for name in selected if name not in SERVED_NAMES]
    if unknown:
        raise typer.BadParameter(f"unknown service(s): {', '.join(unknown)}", param_hint="--only")
    settings = _load_settings()
    configure_logging(settings)
    count = workers if workers is not None else settings.workers
    try:
        if count > 1:
            run_workers(settings, selected, count)
        else:
            asyncio.run(run_servers(settings, selected))
    except SecretKeyError as error:
        typer.echo(f"cannot start: {error}", err=True)
        raise typer.Exit(2) from None
    finally:
        stop_logging()  # every queued line out, the access log's last ones included


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply every pending migration (serve does this too at start)."""
    from .store.migrate import upgrade

    settings = _load_settings()
    configure_logging(settings)
    upgrade(settings)


@secrets_app.command("new-key")
def secrets_new_key() -> None:
    """Print a new platform key (for NETPLATFORM_SECRET_KEY or the key file)."""
    from .store.secrets import SecretKeys

    typer.echo(SecretKeys.generate().decode("ascii"))


@secrets_app.command("rotate")
def secrets_rotate() -> None:
    """Seal every stored secret again with the newest key (the first one configured), and seal any
    value still stored in clear; run it after putting a new key first, before dropping old ones."""
    from .services import sealed_columns
    from .store.db import database_for
    from .store.migrate import upgrade
    from .store.secrets import reseal_column, sealer_for

    settings = _load_settings()
    configure_logging(settings)
    upgrade(settings)
    database, sealer = database_for(settings), sealer_for(settings)
    for column in sealed_columns():
        count = reseal_column(database, sealer, column)
        typer.echo(f"{column.table.name}.{column.name}: {count} sealed with the newest key")


def main() -> None:
    app()
