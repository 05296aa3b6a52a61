"""What a user of onapsdk does with a CBA: run as a script, beside onapsdk's own packages only.

``python -S onapsdk_client.py URL USER PASSWORD ARCHIVE`` with ``PYTHONPATH`` the directory
``make install`` fills from requirements-onapsdk.lock: loads the archive, enriches it, publishes
it, executes ``config-assign`` and reads the stored template back, all through onapsdk, and
prints what the calls returned as JSON for the test to check.
"""

from __future__ import annotations

import json
import sys

from onapsdk.cds.blueprint import Blueprint  # type: ignore[import-not-found]
from onapsdk.cds.cds_element import CdsElement  # type: ignore[import-not-found]


def main(url: str, user: str, password: str, archive: str) -> None:
    CdsElement._url = url
    CdsElement.auth = (user, password)
    blueprint = Blueprint.load_from_file(archive).enrich()
    blueprint.publish()
    workflow = blueprint.get_workflow_by_name("config-assign")
    output = workflow.execute({"resolution-key": "day-1", "config-assign-properties": {"hostname": "r1"}})
    stored = blueprint.get_resolved_template("hostname", resolution_key="day-1")
    inputs = sorted(each.name for each in workflow.inputs)
    print(json.dumps({"output": output, "stored": stored, "workflow_inputs": inputs}))


if __name__ == "__main__":
    main(*sys.argv[1:5])
