"""docs/execution.md's worked config deploy example, run as written (its JSON and template
taken from the page) against a catalog and a real netconfd device."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import httpx

from ...support.cbas import PROCESS
from ...support.deploy_calls import DEVICES
from ...support.netconf_devices import NetconfDevice

DOCS = Path(__file__).resolve().parents[3] / "docs" / "execution.md"
META = (
    "TOSCA-Meta-File-Version: 1.0.0\nCSAR-Version: 1.0\nCreated-By: Ana Ruiz <ana@example.net>\n"
    "Entry-Definitions: Definitions/edge.json\nTemplate-Name: edge-deploy\nTemplate-Version: 1.0.0\n"
    "Template-Tags: edge\n"
)


def example_blocks() -> dict[str, str]:
    """The code blocks of the worked example, by the file name written just before each."""
    page = DOCS.read_text()
    section = page[page.index("### A worked example against netconfd") : page.index("## Clients")]
    blocks: dict[str, str] = {}
    found = re.findall(r"```json\n(.*?)```", section, re.S)
    blocks["edge.json"] = found[0]
    blocks["interfaces-mapping.json"] = found[1]
    blocks["assign.json"], blocks["deploy.json"] = found[2], found[3]
    template = re.search(r"`Templates/interfaces-template.vtl`:\n```\n(.*?)```", section, re.S)
    assert template is not None
    blocks["interfaces-template.vtl"] = template.group(1)
    return blocks


def test_the_worked_example_deploys_as_the_page_says(client: httpx.Client, device: NetconfDevice) -> None:
    blocks = example_blocks()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("TOSCA-Metadata/TOSCA.meta", META)
        archive.writestr("Definitions/edge.json", blocks["edge.json"])
        archive.writestr("Templates/interfaces-mapping.json", blocks["interfaces-mapping.json"])
        archive.writestr("Templates/interfaces-template.vtl", blocks["interfaces-template.vtl"])
    device_body = {
        "name": "edge-1",
        "host": "127.0.0.1",
        "port": device.port,
        "username": "root",
        "privateKey": device.client_key,
        "hostKey": device.host_key,
    }
    assert client.post(DEVICES, json=device_body).status_code == 201
    check = client.post(f"{DEVICES}/edge-1/check").json()
    assert check["ok"] is True and any(":candidate:1.0" in c for c in check["capabilities"])
    saved = client.post("/api/v1/blueprint-model", files={"file": ("edge-deploy.zip", buffer.getvalue())})
    assert saved.status_code == 200, saved.text
    assert client.post(PROCESS, json=json.loads(blocks["assign.json"])).status_code == 200

    answer = client.post(PROCESS, json=json.loads(blocks["deploy.json"]), timeout=120)

    assert answer.status_code == 200, answer.text
    (result,) = answer.json()["payload"]["config-deploy-response"]["result"]["devices"]
    assert {k: result[k] for k in ("device", "status", "datastore", "answer")} == {
        "device": "edge-1",
        "status": "success",
        "datastore": "candidate",
        "answer": "ok",
    }
    assert result["diff"].startswith("--- running\n+++ after\n@@ -1 +1,8 @@\n+<interfaces xmlns=")
    assert "+    <description>uplink to core</description>" in result["diff"]
    assert "<name>eth1</name>" in device.running()
