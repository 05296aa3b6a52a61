"""The blueprint catalog's OpenAPI document tells the truth (issue 17): positive examples are accepted.

schemathesis generates requests from the document the catalog serves (on a fresh store, user
admin); tests/support/openapi_examples.py says what "accepting" means. A random name only ever
meets a 404 or an empty list, which is accepted but says little, so the lookups of one model
type and one resource dictionary are held to names the fixture stores. At least 80 % of the
operations must accept all their positive examples; negative examples never get a 5xx.
NETPLATFORM_BLUEPRINTS_EXAMPLES raises the number of examples per operation.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ..support.examples import example_count
from ..support.openapi_examples import operations_of, positive_report, server_errors, unknown_exclusions
from ..test_fuzz import AUTH_HEADERS, running_schema

EXAMPLES = example_count("NETPLATFORM_BLUEPRINTS_EXAMPLES", 8)
NEGATIVE_EXAMPLES = max(1, EXAMPLES // 2)
M = "/api/v1/blueprint-model"

ARCHIVE = "the file must be a zip archive holding a blueprint (TOSCA-Metadata and its definitions)"
PAIRED_QUERY = (
    "the query takes a resolution key or a resource type and id; OpenAPI cannot state how "
    "parameters depend on each other"
)
EXCLUDED = {
    f"POST {M}": ARCHIVE,
    f"POST {M}/publish": ARCHIVE,
    f"POST {M}/enrich": ARCHIVE,
    f"POST {M}/enrichandpublish": ARCHIVE,
    "GET /api/v1/resources": PAIRED_QUERY,
    "DELETE /api/v1/resources": PAIRED_QUERY,
    "GET /api/v1/template": PAIRED_QUERY,
    "POST /api/v1/execution-service/process": "a run needs a stored blueprint (404 otherwise)",
    # It connects to the device named: a generated device could name any host (the check is sent
    # to the fixture's device only, on_the_fixture).
    "POST /api/v1/devices/{name}/trust-host-key": "connects to the device",
}

MODEL_TYPE = "tosca.datatypes.openapi-examples"
DICTIONARY = "openapi-examples-dictionary"
DEVICE = "openapi-examples-device"


@dataclass(frozen=True)
class Fixture:
    schema: Any
    base_url: str


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixture]:
    for schema, base_url in running_schema("blueprints", tmp_path_factory):
        with httpx.Client(base_url=base_url, headers=AUTH_HEADERS) as client:
            model_type = client.post(
                "/api/v1/model-type",
                json={
                    "modelName": MODEL_TYPE,
                    "derivedFrom": "tosca.datatypes.Root",
                    "definitionType": "data_type",
                    "definition": {"description": "examples", "properties": {}},
                    "description": "examples",
                    "version": "1.0.0",
                    "tags": "openapi",
                    "updatedBy": "tester",
                },
            )
            assert model_type.status_code == 200, model_type.text
            dictionary = client.post(
                "/api/v1/dictionary/definition",
                json={
                    "name": DICTIONARY,
                    "tags": "openapi",
                    "updated-by": "tester",
                    "property": {"type": "string", "description": "examples"},
                    "sources": {"input": {"type": "source-input"}},
                },
            )
            assert dictionary.status_code == 200, dictionary.text
            # the device the check is sent to: loopback's discard port, where nothing listens
            device = {"name": DEVICE, "host": "127.0.0.1", "port": 9, "username": "u", "password": "p"}
            assert client.post("/api/v1/devices", json=device).status_code == 201
        yield Fixture(schema, base_url)


def on_the_fixture(operation: Any) -> dict[str, Any]:
    if operation.label == "GET /api/v1/model-type/{name}":
        return {"path_parameters": {"name": MODEL_TYPE}}
    if operation.label in ("GET /api/v1/devices/{name}", "POST /api/v1/devices/{name}/check"):
        return {"path_parameters": {"name": DEVICE}}
    if operation.label == "GET /api/v1/dictionary/{name}":
        return {"path_parameters": {"name": DICTIONARY}}
    return {}


def test_positive_examples_are_accepted_on_most_catalog_operations(fixture: Fixture) -> None:
    operations = operations_of(fixture.schema)
    assert len(operations) == 61
    assert not unknown_exclusions(operations, EXCLUDED)
    report = positive_report(operations, fixture.base_url, EXAMPLES, excluded=EXCLUDED, fixed=on_the_fixture)
    assert report.ratio >= 0.8, report.explain()
    # The examples were stored, not turned away: model types and dictionaries beyond the fixture's.
    stored = httpx.get(
        f"{fixture.base_url}/api/v1/dictionary/resource_dictionary_group", headers=AUTH_HEADERS
    )
    assert stored.status_code == 200 and len(stored.json()) > 1, stored.text


def test_negative_examples_are_refused_without_server_errors(fixture: Fixture) -> None:
    operations = operations_of(fixture.schema)
    found = server_errors(operations, fixture.base_url, NEGATIVE_EXAMPLES, fixed=on_the_fixture)
    found += server_errors(operations, fixture.base_url, NEGATIVE_EXAMPLES)
    assert not found, "\n".join(found)


MODEL_TYPE_BODY = {
    "modelName": "tosca.datatypes.nul",
    "derivedFrom": "tosca.datatypes.Root",
    "definitionType": "data_type",
    "definition": {"description": "kept as JSON"},
    "description": "d",
    "version": "1.0.0",
    "updatedBy": "tester",
}
DEFINITION = {
    "name": "nul",
    "tags": "t",
    "updated-by": "u",
    "property": {"type": "string", "description": "x"},
}
VALUE = {
    "blueprintName": "b",
    "blueprintVersion": "1",
    "artifactName": "a",
    "name": "n",
    "resolutionKey": "k",
}
NUL = "a\x00"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/model-type", {**MODEL_TYPE_BODY, "description": NUL}),
        ("/api/v1/model-type", {**MODEL_TYPE_BODY, "tags": NUL}),
        ("/api/v1/dictionary/definition", {**DEFINITION, "tags": NUL}),
        ("/api/v1/dictionary/definition", {**DEFINITION, "property": {"type": "s", "description": NUL}}),
        ("/api/v1/dictionary", {"name": "nul", "updatedBy": NUL, "definition": DEFINITION}),
        ("/api/v1/dictionary/by-names", [NUL]),
        (f"{M}/workflow-spec", {"blueprintName": NUL, "workflowName": "w"}),
        ("/api/v1/resources", [{**VALUE, "value": NUL}]),
        ("/api/v1/resources", [{**VALUE, "dictionarySource": NUL}]),
    ],
)
def test_text_with_a_nul_character_is_refused_not_a_server_error(
    fixture: Fixture, path: str, body: Any
) -> None:
    """Found by the generated examples on PostgreSQL, whose text columns cannot hold a NUL (500)."""
    answer = httpx.post(f"{fixture.base_url}{path}", json=body, headers=AUTH_HEADERS)
    assert answer.status_code == 400, answer.text
    assert "NUL characters are not allowed" in answer.text


@pytest.mark.parametrize("path", ["/api/v1/configs/t/i/RUNNING", "/api/v1/template/b/1/a/k"])
def test_a_text_body_with_a_nul_character_is_refused(fixture: Fixture, path: str) -> None:
    answer = httpx.post(
        f"{fixture.base_url}{path}", content=b"a\x00", headers={**AUTH_HEADERS, "Content-Type": "text/plain"}
    )
    assert answer.status_code == 400 and "NUL characters are not allowed" in answer.text, answer.text


def test_a_definition_keeps_a_nul_character_as_json(fixture: Fixture) -> None:
    """Only text columns refuse it: a model type's definition is JSON, where a NUL is an escape."""
    body = {**MODEL_TYPE_BODY, "definition": {"description": NUL}}
    answer = httpx.post(f"{fixture.base_url}/api/v1/model-type", json=body, headers=AUTH_HEADERS)
    assert answer.status_code == 200, answer.text
    assert answer.json()["definition"]["description"] == NUL
