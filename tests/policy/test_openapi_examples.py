"""The policy OpenAPI document tells the truth (issue 17): its positive examples are accepted.

schemathesis generates requests from the document; an operation "accepts its positive
examples" when every one is answered with a status schemathesis' positive-data check accepts
(2xx, 3xx, 401, 403, 404, 409, 429), or with the spec's 406 for a name:version already stored
with other content (spec 4.4 rule 3: the state conflict the reference words as 406, not 409).
At least 80 % of the policy operations must; negative examples never get a 5xx.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from ..test_fuzz import AUTH_HEADERS, running_schema

PREFIX = "/policy/api/v1"
EXAMPLES = int(os.environ.get("NETPLATFORM_POLICY_EXAMPLES", "12"))
ACCEPTING = {*range(200, 400), 401, 403, 404, 409, 429}
STATE_CONFLICT = "does not equal existing entity"


@pytest.fixture(scope="module")
def schema_and_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    yield from running_schema("policy", tmp_path_factory)


def policy_operations(schema: Any) -> list[Any]:
    operations = [result.ok() for result in schema.get_all_operations()]
    return [operation for operation in operations if operation.path.startswith(PREFIX)]


def answers(
    operation: Any, base_url: str, mode: GenerationMode, examples: int = EXAMPLES
) -> list[tuple[int, str]]:
    """(status, body) of each generated example, derandomized so the run is repeatable."""
    seen: list[tuple[int, str]] = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case: Any) -> None:
        response = case.call(base_url=base_url, headers=AUTH_HEADERS)
        seen.append((response.status_code, response.text))

    run()
    return seen


def accepted(status: int, body: str) -> bool:
    return status in ACCEPTING or (status == 406 and STATE_CONFLICT in body)


def test_positive_examples_are_accepted_on_most_policy_operations(schema_and_url: tuple[Any, str]) -> None:
    schema, base_url = schema_and_url
    operations = policy_operations(schema)
    assert len(operations) == 21
    report: list[str] = []
    accepting = 0
    for operation in operations:
        seen = answers(operation, base_url, GenerationMode.POSITIVE)
        good = sum(accepted(status, body) for status, body in seen)
        accepting += good == len(seen)
        rejected = sorted({status for status, body in seen if not accepted(status, body)})
        report.append(f"{operation.label}: {good}/{len(seen)} accepted, rejected with {rejected}")
    ratio = accepting / len(operations)
    assert ratio >= 0.8, (
        f"{accepting}/{len(operations)} operations accept their positive examples:\n" + "\n".join(report)
    )


def test_negative_examples_are_refused_without_server_errors(schema_and_url: tuple[Any, str]) -> None:
    schema, base_url = schema_and_url
    server_errors: list[str] = []
    for operation in policy_operations(schema):
        for status, body in answers(operation, base_url, GenerationMode.NEGATIVE, examples=10):
            if status >= 500:
                server_errors.append(f"{operation.label}: {status} {body[:200]}")
    assert not server_errors, "\n".join(server_errors)


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
