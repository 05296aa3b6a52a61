"""Where a resolution result belongs: the key shared by resolved templates and resolved values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Table, bindparam


@dataclass(frozen=True)
class ResolutionKey:
    """A blueprint artifact plus a resolution key or a resource."""

    blueprint_name: str
    blueprint_version: str
    artifact_name: str
    resolution_key: str = ""
    resource_type: str = ""
    resource_id: str = ""
    occurrence: int = 1

    def conditions(self, table: Table) -> list[ColumnElement[bool]]:
        return [
            table.c.blueprint_name == self.blueprint_name,
            table.c.blueprint_version == self.blueprint_version,
            table.c.artifact_name == self.artifact_name,
            table.c.resolution_key == self.resolution_key,
            table.c.resource_type == self.resource_type,
            table.c.resource_id == self.resource_id,
            table.c.occurrence == self.occurrence,
        ]

    def params(self) -> dict[str, Any]:
        """The values of the bound conditions of ``bound_conditions`` (``key_<column>``)."""
        return {f"key_{column}": value for column, value in self.columns().items()}

    def columns(self) -> dict[str, Any]:
        return {
            "blueprint_name": self.blueprint_name,
            "blueprint_version": self.blueprint_version,
            "artifact_name": self.artifact_name,
            "resolution_key": self.resolution_key,
            "resource_type": self.resource_type,
            "resource_id": self.resource_id,
            "occurrence": self.occurrence,
        }


def without_occurrence(key: ResolutionKey, table: Table) -> list[ColumnElement[bool]]:
    """The conditions of ``key`` for every occurrence."""
    return key.conditions(table)[:-1]  # the occurrence is the last condition


KEY_COLUMNS = (
    "blueprint_name",
    "blueprint_version",
    "artifact_name",
    "resolution_key",
    "resource_type",
    "resource_id",
    "occurrence",
)


def bound_conditions(table: Table) -> list[ColumnElement[bool]]:
    """The conditions of a key as bound parameters (``key.params()`` fills them): a statement
    built once with them is compiled once, instead of being rebuilt and its cache key worked out
    again on every call (most of SQLAlchemy's cost for a small statement)."""
    return [table.c[column] == bindparam(f"key_{column}") for column in KEY_COLUMNS]
