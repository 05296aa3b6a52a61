"""docs/security.md's table of every operation's permission is the one the routes declare."""

from __future__ import annotations

from pathlib import Path

from netplatform.permissions_table import END, START, markdown, operations

PAGE = Path(__file__).resolve().parents[1] / "docs" / "security.md"


def test_every_operation_of_every_service_is_in_the_table() -> None:
    found = operations()
    assert {op.service for op in found} >= {"policy", "bus", "router", "authz", "distribution"}
    assert not [op for op in found if op.needs == "**undeclared**"]


def test_the_security_page_holds_the_generated_table() -> None:
    page = PAGE.read_text()
    table = page.split(START, 1)[1].split(END, 1)[0].lstrip("\n")
    assert table == markdown(), "run: netplatform permissions --write docs/security.md"
