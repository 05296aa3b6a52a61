"""The bus controller's OpenAPI document tells the truth (issue 17): its positive examples are accepted.

As for policy (tests/policy/test_openapi_examples.py): schemathesis generates requests from the
document; an operation accepts its positive examples when every one gets a status the
positive-data check accepts. At least 80 % of the operations must. What the document cannot say
(a client's location must have a cluster; `/bridge` takes source and target together) keeps a
few operations below; they are listed in the failure report.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ..policy.test_openapi_examples import accepted
from ..support.examples import example_count
from ..support.openapi_examples import operations_of, positive_report
from ..test_fuzz import running_schema

EXAMPLES = example_count("NETPLATFORM_BUS_EXAMPLES", 6)


@pytest.fixture(scope="module")
def schema_and_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    yield from running_schema("bus", tmp_path_factory)


def test_positive_examples_are_accepted_on_most_bus_operations(schema_and_url: tuple[Any, str]) -> None:
    schema, base_url = schema_and_url
    operations = operations_of(schema)
    assert len(operations) >= 50
    report = positive_report(operations, base_url, EXAMPLES, accepts=accepted)
    assert report.ratio >= 0.8, report.explain()
