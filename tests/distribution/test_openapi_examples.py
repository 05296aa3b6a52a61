"""File distribution's OpenAPI document tells the truth (issue 17): positive examples are accepted.

schemathesis generates requests from the document distribution serves (on a fresh store, user
admin); tests/support/openapi_examples.py says what "accepting" means. A random feed or
subscription number only ever meets a 404, which says nothing about the bodies and parameters
the document describes, so most examples go to one existing feed and one existing
subscription (their numbers held fixed). Deleting and updating keep random numbers: a delete
would take the fixture away, and an update must repeat the feed's own name, which a schema
cannot tie to a path parameter. At least 80 % of the operations must accept all their positive
examples; negative examples, on the fixture and on random numbers, never get a 5xx.
NETPLATFORM_DISTRIBUTION_EXAMPLES raises the number of examples per operation.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ..support.distribution_calls import (
    FEED_TYPE,
    SUB_TYPE,
    feed_document,
    owner_headers,
    subscription_document,
)
from ..support.examples import example_count
from ..support.openapi_examples import operations_of, positive_report, server_errors, unknown_exclusions
from ..test_fuzz import AUTH_HEADERS, running_schema

EXAMPLES = example_count("NETPLATFORM_DISTRIBUTION_EXAMPLES", 8)
NEGATIVE_EXAMPLES = max(1, EXAMPLES // 2)

EXCLUDED = {
    "PUT /internal/forward/{publish_id}": (
        "the X-NETPLATFORM-FORWARD header is a JSON envelope that must repeat the path's publishId, "
        "which a header schema cannot state"
    ),
    "GET /internal/provisioning": "a long poll: a generated wait holds each example up to 30 s",
}
KEEP_RANDOM = {"DELETE /feed/{feed_id}", "PUT /feed/{feed_id}", "DELETE /subs/{sub_id}", "PUT /subs/{sub_id}"}


@dataclass(frozen=True)
class Fixture:
    schema: Any
    base_url: str
    feed_id: int
    sub_id: int


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixture]:
    for schema, base_url in running_schema("distribution", tmp_path_factory):
        with httpx.Client(base_url=base_url, headers=AUTH_HEADERS) as client:
            feed = client.post(
                "/",
                json=feed_document("openapi-examples"),
                headers={**owner_headers(), "Content-Type": FEED_TYPE},
            )
            assert feed.status_code == 200, feed.text
            feed_id = int(feed.json()["links"]["self"].rsplit("/", 1)[1])
            sub = client.post(
                f"/subscribe/{feed_id}",
                json=subscription_document(),
                headers={**owner_headers(), "Content-Type": SUB_TYPE},
            )
            assert sub.status_code == 201, sub.text
            sub_id = int(sub.json()["links"]["self"].rsplit("/", 1)[1])
        yield Fixture(schema, base_url, feed_id, sub_id)


def on_the_fixture(fixture: Fixture) -> Any:
    def fixed(operation: Any) -> dict[str, Any]:
        if operation.label in KEEP_RANDOM or operation.path.startswith("/publish/"):
            return {}
        held = {}
        if "{feed_id}" in operation.path:
            held["feed_id"] = str(fixture.feed_id)
        if "{sub_id}" in operation.path:
            held["sub_id"] = str(fixture.sub_id)
        return {"path_parameters": held} if held else {}

    return fixed


def test_positive_examples_are_accepted_on_most_distribution_operations(fixture: Fixture) -> None:
    operations = operations_of(fixture.schema)
    assert len(operations) == 34
    assert not unknown_exclusions(operations, EXCLUDED)
    report = positive_report(
        operations, fixture.base_url, EXAMPLES, excluded=EXCLUDED, fixed=on_the_fixture(fixture)
    )
    assert report.ratio >= 0.8, report.explain()
    # The examples reached the fixture: subscriptions were added to the feed, not turned away.
    listed = httpx.get(
        f"{fixture.base_url}/subscribe/{fixture.feed_id}", headers={**AUTH_HEADERS, **owner_headers()}
    )
    assert listed.status_code == 200 and len(listed.json()) > 1, listed.text


def test_negative_examples_are_refused_without_server_errors(fixture: Fixture) -> None:
    operations = operations_of(fixture.schema)
    found = server_errors(operations, fixture.base_url, NEGATIVE_EXAMPLES, fixed=on_the_fixture(fixture))
    found += server_errors(operations, fixture.base_url, NEGATIVE_EXAMPLES)
    assert not found, "\n".join(found)
