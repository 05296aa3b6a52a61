"""The policy OpenAPI document tells the truth (issue 17): its positive examples are accepted.

schemathesis generates requests from the document; an operation "accepts its positive
examples" when every one is answered with a status schemathesis' positive-data check accepts
(2xx, 3xx, 401, 403, 404, 409, 429), or with the spec's 406 for a name:version already stored
with other content (spec 4.4 rule 3: the state conflict the reference words as 406, not 409).
At least 80 % of the policy operations must; negative examples never get a 5xx.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ..support.examples import example_count
from ..support.openapi_examples import ACCEPTING, operations_of, positive_report, server_errors
from ..test_fuzz import running_schema

PREFIX = "/policy/api/v1"
EXAMPLES = example_count("NETPLATFORM_POLICY_EXAMPLES", 12)
STATE_CONFLICT = "does not equal existing entity"


@pytest.fixture(scope="module")
def schema_and_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    yield from running_schema("policy", tmp_path_factory)


def accepted(status: int, body: str) -> bool:
    return status in ACCEPTING or (status == 406 and STATE_CONFLICT in body)


def test_positive_examples_are_accepted_on_most_policy_operations(schema_and_url: tuple[Any, str]) -> None:
    schema, base_url = schema_and_url
    operations = operations_of(schema, PREFIX)
    assert len(operations) == 21
    report = positive_report(operations, base_url, EXAMPLES, accepts=accepted)
    assert report.ratio >= 0.8, report.explain()


def test_negative_examples_are_refused_without_server_errors(schema_and_url: tuple[Any, str]) -> None:
    schema, base_url = schema_and_url
    found = server_errors(operations_of(schema, PREFIX), base_url, examples=10)
    assert not found, "\n".join(found)


def test_the_document_states_the_syntax_the_routes_check(schema_and_url: tuple[Any, str]) -> None:
    """Names, versions, `latest`, mode and the request bodies are described, not bare strings."""
    schema, _ = schema_and_url
    document = schema.raw_schema
    operation = document["paths"][f"{PREFIX}/policies/{{policyId}}/versions/{{policyVersion}}"]
    parameters = {parameter["name"]: parameter["schema"] for parameter in operation["get"]["parameters"]}
    assert parameters["policyId"]["pattern"] == "^[A-Za-z0-9._-]+$"
    assert parameters["policyId"]["maxLength"] == 120
    assert parameters["policyVersion"]["pattern"].startswith("^(latest|")
    assert parameters["mode"]["enum"] == ["BARE", "REFERENCED"]
    delete = {parameter["name"]: parameter["schema"] for parameter in operation["delete"]["parameters"]}
    assert "latest" not in delete["policyVersion"]["pattern"]
    body = document["paths"][f"{PREFIX}/policytypes"]["post"]["requestBody"]["content"]
    assert set(body) == {"application/json", "application/yaml"}
    assert body["application/json"]["schema"]["required"] == ["policy_types"]
    node_body = document["paths"][f"{PREFIX}/nodetemplates"]["post"]["requestBody"]["content"]
    assert set(node_body) == {"application/json"}
