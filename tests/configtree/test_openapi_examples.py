"""The config tree's OpenAPI document tells the truth (issue 17): positive examples are accepted.

schemathesis generates requests from the document the config tree serves (one path per node
of the YANG model, on a fresh store, user admin); tests/support/openapi_examples.py says what
"accepting" means. At least 80 % of the operations must accept all their positive examples,
and no negative example may get a 5xx (tests/test_fuzz.py sends positive examples only).
The document has 107 operations and building the strategies of the bodies is slow, so each
operation gets few examples by default; NETPLATFORM_CONFIGTREE_EXAMPLES raises them.

Two rules of the model are beyond JSON Schema, and are written in the document's prose only:
entries of a list have distinct keys (JSON Schema can say "distinct items", which the document
does, but not "distinct by a member"), and a body sent to a list entry's URI repeats that
entry's key. An example breaking the first is refused (400 Duplicate entry) and counts
against its operation; operations whose every example must obey the second are listed in
EXCLUDED and count as not accepting.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ..support.examples import example_count
from ..support.openapi_examples import operations_of, positive_report, server_errors, unknown_exclusions
from ..test_fuzz import running_schema

EXAMPLES = example_count("NETPLATFORM_CONFIGTREE_EXAMPLES", 4)
NEGATIVE_EXAMPLES = max(1, EXAMPLES // 2)
M = "GENERIC-RESOURCE-API"


def node(*segments: str) -> str:
    """The documented path of a node below the root; ``{key}`` segments stay as they are."""
    below = "".join(segment + "/" if segment.startswith("{") else f"{M}:{segment}/" for segment in segments)
    return f"/config/{M}:brg-allotted-resources/{below}"


ENTRY = ("brg-allotted-resource", "{allotted-resource-id}")
PARAM = ("param", "{name}")
RESOURCE_KEY = ("resource-resolution-data", "resource-key", "{resource-key-name}")
TOPOLOGY_PARAMETERS = (*ENTRY, "allotted-resource-data", "brg-topology", "brg-parameters")
DATA_PARAMETERS = (*ENTRY, "allotted-resource-data", "brg-parameters")

# PUT on a list entry replaces it with the body's one entry, whose key must equal the URI's
# (RFC 8040 section 4.5; 400 invalid-value otherwise). The key is a path parameter and a body
# member at once, and JSON Schema cannot tie one to the other, so a generated body carries a
# key of its own: these operations cannot accept generated examples.
KEY_REPEATED = "the body's entry must carry the URI's key, which JSON Schema cannot tie to a path parameter"
EXCLUDED = {
    f"PUT {node(*ENTRY)}": KEY_REPEATED,
    f"PUT {node(*TOPOLOGY_PARAMETERS, *PARAM)}": KEY_REPEATED,
    f"PUT {node(*TOPOLOGY_PARAMETERS, *PARAM, *RESOURCE_KEY)}": KEY_REPEATED,
    f"PUT {node(*DATA_PARAMETERS, *PARAM)}": KEY_REPEATED,
    f"PUT {node(*DATA_PARAMETERS, *PARAM, *RESOURCE_KEY)}": KEY_REPEATED,
}


@pytest.fixture(scope="module")
def schema_and_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    yield from running_schema("configtree", tmp_path_factory)


def test_positive_examples_are_accepted_on_most_config_tree_operations(
    schema_and_url: tuple[Any, str],
) -> None:
    schema, base_url = schema_and_url
    operations = operations_of(schema)
    assert not unknown_exclusions(operations, EXCLUDED)
    report = positive_report(operations, base_url, EXAMPLES, excluded=EXCLUDED)
    print(report.explain())
    assert report.ratio >= 0.8, report.explain()


def test_negative_examples_are_refused_without_server_errors(schema_and_url: tuple[Any, str]) -> None:
    schema, base_url = schema_and_url
    found = server_errors(operations_of(schema), base_url, NEGATIVE_EXAMPLES)
    assert not found, "\n".join(found)
