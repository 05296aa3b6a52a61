"""onapsdk end to end: load a CBA, enrich, publish, execute a workflow, read the stored template back.

onapsdk pins versions the project's own environment cannot take (jinja2==3.1.5,
jsonschema==4.4.0), so it is not a dependency: ``make install`` puts it and its run-time
dependencies, at the versions of requirements-onapsdk.lock, into ``.venv/onapsdk-site``
(``NETPLATFORM_TEST_ONAPSDK_SITE`` names another directory). The client runs in a subprocess
that sees that directory and the standard library only (``python -S``), so neither environment
leaks into the other; the catalog it talks to runs in this process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ...conftest import ADMIN, RunningService
from ...support.cbas import assignment, cba, resolution_node, workflow
from ...support.required import unavailable

SITE = Path(os.environ.get("NETPLATFORM_TEST_ONAPSDK_SITE") or Path(sys.prefix) / "onapsdk-site")
CLIENT = Path(__file__).with_name("onapsdk_client.py")


@pytest.fixture(autouse=True)
def _onapsdk_installed() -> None:
    if not (SITE / "onapsdk").is_dir():
        unavailable(
            f"onapsdk is not installed in {SITE} (`make install` installs requirements-onapsdk.lock there)"
        )


def hello_cba() -> bytes:
    mapping = [assignment("hostname"), assignment("ntp-server", "default", default="ntp.example.net")]
    return cba(
        "sdk-hello",
        {
            "config-assign": workflow(
                {"assign": {"target": "resolve"}},
                outputs={"dry-run": {"get_attribute": ["resolve", "assignment-params"]}},
                inputs={"resolution-key": {"type": "string", "required": True}},
            )
        },
        {
            "resolve": resolution_node(
                {"hostname": "vtl"}, {"store-result": True, "resolution-key": {"get_input": "resolution-key"}}
            )
        },
        {
            "Templates/hostname-mapping.json": mapping,
            "Templates/hostname-template.vtl": '{"hostname": "$hostname", "ntp": "${ntp-server}"}',
        },
    )


def test_onapsdk_executes_a_workflow_and_reads_the_stored_template(
    service: RunningService, bootstrapped: httpx.Client, tmp_path: Path
) -> None:
    archive = tmp_path / "cba.zip"
    archive.write_bytes(hello_cba())
    done = subprocess.run(
        [sys.executable, "-S", str(CLIENT), service.url, *ADMIN, str(archive)],
        env={**os.environ, "PYTHONPATH": str(SITE)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    rendered = seen["output"]["config-assign-response"]["dry-run"]["hostname"]
    assert json.loads(rendered) == {"hostname": "r1", "ntp": "ntp.example.net"}
    assert seen["stored"] == {"hostname": "r1", "ntp": "ntp.example.net"}
    assert "resolution-key" in seen["workflow_inputs"]
    # What onapsdk enriched and published is the catalog's model.
    model = bootstrapped.get("/api/v1/blueprint-model/by-name/sdk-hello/version/1.0.0")
    assert model.status_code == 200 and model.json()["blueprintModel"]["published"] == "Y"
