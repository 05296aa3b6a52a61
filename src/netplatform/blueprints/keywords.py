"""Whole-keyword search over a blueprint model's meta-data.

A model matches a keyword when any comma-separated item of ``updatedBy``, ``tags``,
``artifactName``, ``artifactVersion`` or ``artifactType`` equals it, ignoring case: ``edge``
matches tags ``"edge, router"``, ``edg`` does not. The items are computed once, when a model is
stored, and kept in an indexed table.
"""

from __future__ import annotations


def normalized_keyword(text: str) -> str:
    return text.strip().lower()


def keywords_of(*fields: str) -> set[str]:
    items = (normalized_keyword(item) for field in fields for item in field.split(","))
    return {item for item in items if item}
