"""The store is a layer below the web kernel: importing every store module loads no web code."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import netplatform.store


def test_every_store_module_imports_without_the_web_kernel() -> None:
    walked = pkgutil.walk_packages(netplatform.store.__path__, "netplatform.store.")
    # migrations.env is Alembic's script, run by Alembic inside a migration (it imports nothing else).
    modules = [info.name for info in walked if info.name != "netplatform.store.migrations.env"]
    assert "netplatform.store.retry" in modules  # the walk found the modules that used to import web
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('netplatform.web')))\n"
    )
    # A fresh interpreter: this one has imported the web kernel already (the test support does).
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "[]"
