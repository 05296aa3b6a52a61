"""onapsdk end to end: load a CBA, enrich, publish, execute a workflow, read the stored template back.

onapsdk pins versions the project's own environment cannot take (jinja2==3.1.5,
jsonschema==4.4.0), so it is not a dependency: the test runs where onapsdk is importable
(``pip install --target DIR --no-deps onapsdk==14.6.0 requests simplejson oyaml dacite
opentelemetry-api``, then ``PYTHONPATH=DIR``) and is skipped elsewhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from ...conftest import ADMIN, RunningService
from .cbas import assignment, cba, resolution_node, workflow

onapsdk_blueprint = pytest.importorskip("onapsdk.cds.blueprint")
onapsdk_element = pytest.importorskip("onapsdk.cds.cds_element")


def test_onapsdk_executes_a_workflow_and_reads_the_stored_template(
    service: RunningService, bootstrapped: httpx.Client, tmp_path: Path
) -> None:
    onapsdk_element.CdsElement._url = service.url
    onapsdk_element.CdsElement.auth = ADMIN
    mapping = [assignment("hostname"), assignment("ntp-server", "default", default="ntp.example.net")]
    archive = cba(
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
    path = tmp_path / "cba.zip"
    path.write_bytes(archive)
    blueprint = onapsdk_blueprint.Blueprint.load_from_file(str(path)).enrich()
    blueprint.publish()
    out = blueprint.get_workflow_by_name("config-assign").execute(
        {"resolution-key": "day-1", "config-assign-properties": {"hostname": "r1"}}
    )
    rendered = out["config-assign-response"]["dry-run"]["hostname"]
    assert json.loads(rendered) == {"hostname": "r1", "ntp": "ntp.example.net"}
    stored = blueprint.get_resolved_template("hostname", resolution_key="day-1")
    assert stored == {"hostname": "r1", "ntp": "ntp.example.net"}
