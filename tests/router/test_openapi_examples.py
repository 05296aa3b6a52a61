"""The message router's OpenAPI document tells the truth (issue 17): positive examples are accepted.

schemathesis generates requests from the document the router serves (embedded engine, on a
fresh store, user admin, the router admin); tests/support/openapi_examples.py says what
"accepting" means. A random topic name only ever meets a 404, which says nothing about the
bodies and parameters the document describes, so the examples go to one existing topic (its
name held fixed; DELETE /topics/{topic} keeps a random one so the topic stays), and the long
polls are asked not to wait (timeout=0). At least 80 % of the router's operations must accept
all their positive examples; negative examples, on the topic and on random names, never get a
5xx (tests/test_fuzz.py sends positive examples only).
NETPLATFORM_ROUTER_EXAMPLES raises the number of examples per operation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ..support.examples import example_count
from ..support.openapi_examples import operations_of, positive_report, server_errors
from ..test_fuzz import AUTH_HEADERS, running_schema

EXAMPLES = example_count("NETPLATFORM_ROUTER_EXAMPLES", 10)
TOPIC = "org.example.openapi.examples"
LONG_POLLS = {"GET /events/{topic}/{group}/{consumer}", "GET /internal/mirror/{topic}"}


@pytest.fixture(scope="module")
def schema_and_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    for schema, base_url in running_schema("router", tmp_path_factory):
        created = httpx.post(f"{base_url}/topics/create", json={"topicName": TOPIC}, headers=AUTH_HEADERS)
        assert created.status_code == 200, created.text
        yield schema, base_url


def on_the_topic(operation: Any) -> dict[str, Any]:
    fixed: dict[str, Any] = {}
    if "{topic}" in operation.path and operation.label != "DELETE /topics/{topic}":
        fixed["path_parameters"] = {"topic": TOPIC}
    if operation.label in LONG_POLLS:
        fixed["query"] = {"timeout": 0}
    return fixed


def test_positive_examples_are_accepted_on_most_router_operations(schema_and_url: tuple[Any, str]) -> None:
    schema, base_url = schema_and_url
    operations = operations_of(schema)
    assert len(operations) == 16
    report = positive_report(operations, base_url, EXAMPLES, fixed=on_the_topic)
    assert report.ratio >= 0.8, report.explain()
    # The examples reached the topic (published there), rather than being turned away before it.
    published = httpx.get(f"{base_url}/internal/mirror/{TOPIC}", params={"limit": 1}, headers=AUTH_HEADERS)
    assert published.status_code == 200 and published.json(), published.text


def test_negative_examples_are_refused_without_server_errors(schema_and_url: tuple[Any, str]) -> None:
    schema, base_url = schema_and_url
    operations = operations_of(schema)
    found = server_errors(operations, base_url, EXAMPLES, fixed=on_the_topic)
    found += server_errors(operations, base_url, EXAMPLES)
    assert not found, "\n".join(found)
