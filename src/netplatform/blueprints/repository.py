"""Every query of the catalog; the only module that talks to the database.

Rows come back as small frozen records, so the layers above never hold a live session. Writes
that replace a keyed row are "select for update, then update or insert"; on PostgreSQL two
first-time writers can still race to insert the same key, which :func:`write_with_retry` absorbs
by running the transaction again (SQLite serialises writers with BEGIN IMMEDIATE).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Row, Select, Table, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..store.db import Database
from . import tables
from .keywords import keywords_of, normalized_keyword

Result = TypeVar("Result")
WRITE_ATTEMPTS = 5


def write_with_retry(db: Database, work: Callable[..., Result], *args: Any) -> Result:
    """``work(session, *args)`` in one committed transaction, again if a concurrent insert won the race."""
    for attempt in range(WRITE_ATTEMPTS):
        try:
            with db.write() as session:
                return work(session, *args)
        except IntegrityError:
            if attempt == WRITE_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _contains(column: Any, text: str) -> ColumnElement[bool]:
    """Case-insensitive substring test against a column of lower-cased text."""
    return column.like(_like(text), escape="\\")


# --- blueprint models ----------------------------------------------------------------------


@dataclass(frozen=True)
class ModelRecord:
    id: str
    artifact_name: str
    artifact_version: str
    artifact_type: str
    artifact_description: str
    published: str
    updated_by: str
    tags: str
    created_date: datetime
    blob_name: str
    blob_size: int
    workflows: list[str]


_models = tables.models
_keywords = tables.model_keywords


def _model_record(row: Row[Any]) -> ModelRecord:
    values = row._mapping
    return ModelRecord(
        id=values["id"],
        artifact_name=values["artifact_name"],
        artifact_version=values["artifact_version"],
        artifact_type=values["artifact_type"],
        artifact_description=values["artifact_description"],
        published=values["published"],
        updated_by=values["updated_by"],
        tags=values["tags"],
        created_date=values["created_date"],
        blob_name=values["blob_name"],
        blob_size=values["blob_size"],
        workflows=json.loads(values["workflows"]),
    )


def _select_models() -> Select[Any]:
    return select(*[column for column in _models.c if column.name != "tags_lower"])


def _models_where(session: Session, *conditions: ColumnElement[bool]) -> list[ModelRecord]:
    rows = session.execute(_select_models().where(*conditions).order_by(_models.c.created_date, _models.c.id))
    return [_model_record(row) for row in rows]


def find_model(session: Session, model_id: str) -> ModelRecord | None:
    found = _models_where(session, _models.c.id == model_id)
    return found[0] if found else None


def find_model_by_name(session: Session, name: str, version: str) -> ModelRecord | None:
    found = _models_where(session, _models.c.artifact_name == name, _models.c.artifact_version == version)
    return found[0] if found else None


def all_models(session: Session) -> list[ModelRecord]:
    return _models_where(session)


def _has_keyword(keyword: str) -> ColumnElement[bool]:
    matching = select(_keywords.c.model_id).where(_keywords.c.keyword == normalized_keyword(keyword))
    return _models.c.id.in_(matching)


def models_with_keyword(session: Session, keyword: str) -> list[ModelRecord]:
    return _models_where(session, _has_keyword(keyword))


def models_with_tag_text(session: Session, text: str) -> list[ModelRecord]:
    return _models_where(session, _contains(_models.c.tags_lower, text))


MODEL_SORT_COLUMNS = {
    "DATE": (_models.c.created_date, _models.c.id),
    "NAME": (_models.c.artifact_name, _models.c.artifact_version),
    "VERSION": (_models.c.artifact_version, _models.c.id),
}
"""Each sort is a total order that an index serves (ties broken by a unique column)."""


def page_of_models(
    session: Session,
    *,
    keyword: str | None,
    published: str | None,
    sort: str,
    descending: bool,
    limit: int,
    page: int,
) -> tuple[list[ModelRecord], int]:
    """One page of models (and the total count), ordered by an indexed column then id."""
    conditions: list[ColumnElement[bool]] = []
    if keyword is not None:
        conditions.append(_has_keyword(keyword))
    if published is not None:
        conditions.append(_models.c.published == published)
    total = session.execute(select(func.count()).select_from(_models).where(*conditions)).scalar_one()
    columns = MODEL_SORT_COLUMNS[sort]
    order = [column.desc() if descending else column.asc() for column in columns]
    query = _select_models().where(*conditions).order_by(*order).limit(limit).offset(page * limit)
    return [_model_record(row) for row in session.execute(query)], int(total)


def replace_model(session: Session, record: ModelRecord) -> str | None:
    """Store ``record``, replacing the model of the same name and version; the old blob's name.

    A replaced model's row is updated in place (new id included) rather than deleted and
    inserted again, so a concurrent replacement waiting on its lock finds the row, not a gap.
    """
    existing = session.execute(
        select(_models.c.id, _models.c.blob_name)
        .where(
            _models.c.artifact_name == record.artifact_name,
            _models.c.artifact_version == record.artifact_version,
        )
        .with_for_update()
    ).first()
    values = {
        "id": record.id,
        "artifact_type": record.artifact_type,
        "artifact_description": record.artifact_description,
        "published": record.published,
        "updated_by": record.updated_by,
        "tags": record.tags,
        "tags_lower": record.tags.lower(),
        "created_date": record.created_date,
        "blob_name": record.blob_name,
        "blob_size": record.blob_size,
        "workflows": json.dumps(record.workflows),
    }
    if existing is None:
        session.execute(
            insert(_models).values(
                artifact_name=record.artifact_name, artifact_version=record.artifact_version, **values
            )
        )
    else:
        session.execute(delete(_keywords).where(_keywords.c.model_id == existing.id))
        session.execute(update(_models).where(_models.c.id == existing.id).values(**values))
    words = keywords_of(
        record.updated_by, record.tags, record.artifact_name, record.artifact_version, record.artifact_type
    )
    if words:
        rows = [{"model_id": record.id, "keyword": word} for word in sorted(words)]
        session.execute(insert(_keywords), rows)
    return existing.blob_name if existing is not None else None


def delete_models(session: Session, *conditions: ColumnElement[bool]) -> list[str]:
    """Delete the matching models; the names of their blobs (for the caller to remove)."""
    doomed = session.execute(
        select(_models.c.id, _models.c.blob_name).where(*conditions).with_for_update()
    ).all()
    ids = [row.id for row in doomed]
    if ids:
        session.execute(delete(_keywords).where(_keywords.c.model_id.in_(ids)))
        session.execute(delete(_models).where(_models.c.id.in_(ids)))
    return [row.blob_name for row in doomed]


def delete_model(session: Session, model_id: str) -> list[str]:
    return delete_models(session, _models.c.id == model_id)


def delete_model_by_name(session: Session, name: str, version: str) -> list[str]:
    return delete_models(session, _models.c.artifact_name == name, _models.c.artifact_version == version)


# --- model types ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelTypeRecord:
    name: str
    derived_from: str
    definition_type: str
    definition: dict[str, Any]
    description: str
    version: str
    tags: str | None
    creation_date: datetime
    updated_by: str


_types = tables.model_types


def _type_record(row: Row[Any]) -> ModelTypeRecord:
    values = row._mapping
    return ModelTypeRecord(
        name=values["name"],
        derived_from=values["derived_from"],
        definition_type=values["definition_type"],
        definition=json.loads(values["definition"]),
        description=values["description"],
        version=values["version"],
        tags=values["tags"],
        creation_date=values["creation_date"],
        updated_by=values["updated_by"],
    )


def _types_where(session: Session, *conditions: ColumnElement[bool]) -> list[ModelTypeRecord]:
    return [
        _type_record(row)
        for row in session.execute(select(_types).where(*conditions).order_by(_types.c.name))
    ]


def _upsert(session: Session, table: Table, key: dict[str, Any], values: dict[str, Any]) -> None:
    conditions = [table.c[name] == value for name, value in key.items()]
    found = session.execute(
        select(*[table.c[name] for name in key]).where(*conditions).with_for_update()
    ).first()
    if found is None:
        session.execute(insert(table).values(**key, **values))
    else:
        session.execute(update(table).where(*conditions).values(**values))


def save_model_type(session: Session, record: ModelTypeRecord) -> None:
    _upsert(
        session,
        _types,
        {"name": record.name},
        {
            "derived_from": record.derived_from,
            "definition_type": record.definition_type,
            "definition": json.dumps(record.definition),
            "description": record.description,
            "version": record.version,
            "tags": record.tags,
            "tags_lower": record.tags.lower() if record.tags is not None else None,
            "creation_date": record.creation_date,
            "updated_by": record.updated_by,
        },
    )


def find_model_type(session: Session, name: str) -> ModelTypeRecord | None:
    found = _types_where(session, _types.c.name == name)
    return found[0] if found else None


def model_types_of_kind(session: Session, definition_type: str) -> list[ModelTypeRecord]:
    return _types_where(session, _types.c.definition_type == definition_type)


def model_types_with_tag_text(session: Session, text: str) -> list[ModelTypeRecord]:
    return _types_where(session, _contains(_types.c.tags_lower, text))


def delete_model_type(session: Session, name: str) -> None:
    session.execute(delete(_types).where(_types.c.name == name))


# --- resource dictionaries -----------------------------------------------------------------


@dataclass(frozen=True)
class DictionaryRecord:
    name: str
    data_type: str
    entry_schema: str | None
    group: str
    definition: dict[str, Any]
    description: str
    tags: str
    creation_date: datetime
    updated_by: str


_dictionaries = tables.dictionaries


def _dictionary_record(row: Row[Any]) -> DictionaryRecord:
    values = row._mapping
    return DictionaryRecord(
        name=values["name"],
        data_type=values["data_type"],
        entry_schema=values["entry_schema"],
        group=values["dictionary_group"],
        definition=json.loads(values["definition"]),
        description=values["description"],
        tags=values["tags"],
        creation_date=values["creation_date"],
        updated_by=values["updated_by"],
    )


def _dictionaries_where(session: Session, *conditions: ColumnElement[bool]) -> list[DictionaryRecord]:
    query = select(_dictionaries).where(*conditions).order_by(_dictionaries.c.name)
    return [_dictionary_record(row) for row in session.execute(query)]


def save_dictionary(session: Session, record: DictionaryRecord) -> None:
    _upsert(
        session,
        _dictionaries,
        {"name": record.name},
        {
            "data_type": record.data_type,
            "entry_schema": record.entry_schema,
            "dictionary_group": record.group,
            "definition": json.dumps(record.definition),
            "description": record.description,
            "tags": record.tags,
            "tags_lower": record.tags.lower(),
            "creation_date": record.creation_date,
            "updated_by": record.updated_by,
        },
    )


def find_dictionary(session: Session, name: str) -> DictionaryRecord | None:
    found = _dictionaries_where(session, _dictionaries.c.name == name)
    return found[0] if found else None


def dictionaries_named(session: Session, names: Sequence[str]) -> list[DictionaryRecord]:
    return _dictionaries_where(session, _dictionaries.c.name.in_(list(names)))


def dictionaries_with_tag_text(session: Session, text: str) -> list[DictionaryRecord]:
    return _dictionaries_where(session, _contains(_dictionaries.c.tags_lower, text))


def dictionary_groups(session: Session) -> list[str]:
    column = _dictionaries.c.dictionary_group
    return list(session.execute(select(column).distinct().order_by(column)).scalars())


def delete_dictionary(session: Session, name: str) -> None:
    session.execute(delete(_dictionaries).where(_dictionaries.c.name == name))


# --- configuration snapshots ---------------------------------------------------------------


@dataclass(frozen=True)
class ConfigRecord:
    resource_type: str
    resource_id: str
    status: str
    config_snapshot: str
    id: str
    created_date: datetime


_configs = tables.configs


def _config_record(row: Row[Any]) -> ConfigRecord:
    values = row._mapping
    return ConfigRecord(
        resource_type=values["resource_type"],
        resource_id=values["resource_id"],
        status=values["status"],
        config_snapshot=values["config_snapshot"],
        id=values["id"],
        created_date=values["created_date"],
    )


def _config_key(resource_type: str, resource_id: str, status: str) -> list[ColumnElement[bool]]:
    return [
        _configs.c.resource_type == resource_type,
        _configs.c.resource_id == resource_id,
        _configs.c.status == status,
    ]


def replace_config(session: Session, record: ConfigRecord) -> None:
    """Delete then insert, so the replaced snapshot becomes the newest in insertion order."""
    key = _config_key(record.resource_type, record.resource_id, record.status)
    session.execute(select(_configs.c.seq).where(*key).with_for_update()).all()
    session.execute(delete(_configs).where(*key))
    session.execute(
        insert(_configs).values(
            id=record.id,
            resource_type=record.resource_type,
            resource_id=record.resource_id,
            status=record.status,
            config_snapshot=record.config_snapshot,
            created_date=record.created_date,
        )
    )


def find_config(session: Session, resource_type: str, resource_id: str, status: str) -> ConfigRecord | None:
    row = session.execute(select(_configs).where(*_config_key(resource_type, resource_id, status))).first()
    return _config_record(row) if row is not None else None


def configs_matching(
    session: Session,
    *,
    resource_type: str | None = None,
    resource_id: str | None = None,
    status: str | None = None,
) -> list[ConfigRecord]:
    """Newest first: most recently created or replaced."""
    conditions = []
    if resource_type is not None:
        conditions.append(_configs.c.resource_type == resource_type)
    if resource_id is not None:
        conditions.append(_configs.c.resource_id == resource_id)
    if status is not None:
        conditions.append(_configs.c.status == status)
    query = select(_configs).where(*conditions).order_by(_configs.c.seq.desc())
    return [_config_record(row) for row in session.execute(query)]


def delete_config(session: Session, resource_type: str, resource_id: str, status: str) -> None:
    session.execute(delete(_configs).where(*_config_key(resource_type, resource_id, status)))


# --- resolved templates --------------------------------------------------------------------


@dataclass(frozen=True)
class ResolutionKey:
    """Where a resolution belongs: a blueprint artifact plus a resolution key or a resource."""

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


@dataclass(frozen=True)
class TemplateRecord:
    key: ResolutionKey
    result: str
    id: str
    created_date: datetime


_templates = tables.templates


def replace_template(session: Session, record: TemplateRecord) -> None:
    conditions = record.key.conditions(_templates)
    session.execute(select(_templates.c.id).where(*conditions).with_for_update()).all()
    session.execute(delete(_templates).where(*conditions))
    session.execute(
        insert(_templates).values(
            id=record.id, result=record.result, created_date=record.created_date, **record.key.columns()
        )
    )


def find_template(session: Session, key: ResolutionKey) -> TemplateRecord | None:
    row = session.execute(select(_templates).where(*key.conditions(_templates))).first()
    if row is None:
        return None
    values = row._mapping
    return TemplateRecord(
        key=key, result=values["result"], id=values["id"], created_date=values["created_date"]
    )


# --- resolved resources --------------------------------------------------------------------


@dataclass(frozen=True)
class ResourceRecord:
    key: ResolutionKey
    name: str
    value: str
    status: str
    dictionary_name: str | None
    dictionary_source: str | None
    dictionary_version: int | None
    id: str
    created_date: datetime


_resources = tables.resources


def _resource_record(row: Row[Any]) -> ResourceRecord:
    values = row._mapping
    return ResourceRecord(
        key=ResolutionKey(
            blueprint_name=values["blueprint_name"],
            blueprint_version=values["blueprint_version"],
            artifact_name=values["artifact_name"],
            resolution_key=values["resolution_key"],
            resource_type=values["resource_type"],
            resource_id=values["resource_id"],
            occurrence=values["occurrence"],
        ),
        name=values["name"],
        value=values["value"],
        status=values["status"],
        dictionary_name=values["dictionary_name"],
        dictionary_source=values["dictionary_source"],
        dictionary_version=values["dictionary_version"],
        id=values["id"],
        created_date=values["created_date"],
    )


def store_resources(session: Session, records: Iterable[ResourceRecord]) -> None:
    """Each value replaces the one of the same name under the same key and occurrence."""
    for record in records:
        conditions = [*record.key.conditions(_resources), _resources.c.name == record.name]
        session.execute(select(_resources.c.id).where(*conditions).with_for_update()).all()
        session.execute(delete(_resources).where(*conditions))
        session.execute(
            insert(_resources).values(
                id=record.id,
                name=record.name,
                value=record.value,
                status=record.status,
                dictionary_name=record.dictionary_name,
                dictionary_source=record.dictionary_source,
                dictionary_version=record.dictionary_version,
                created_date=record.created_date,
                **record.key.columns(),
            )
        )


def _resources_where(session: Session, *conditions: ColumnElement[bool]) -> list[ResourceRecord]:
    query = (
        select(_resources)
        .where(*conditions)
        .order_by(_resources.c.occurrence, _resources.c.created_date, _resources.c.name)
    )
    return [_resource_record(row) for row in session.execute(query)]


@dataclass(frozen=True)
class ResourceQuery:
    """Which resolved values: by blueprint plus (artifact and resolution key) or (resource type and id)."""

    blueprint_name: str
    blueprint_version: str
    artifact_name: str | None = None
    resolution_key: str | None = None
    resource_type: str | None = None
    resource_id: str | None = None
    name: str | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        conditions = [
            _resources.c.blueprint_name == self.blueprint_name,
            _resources.c.blueprint_version == self.blueprint_version,
        ]
        optional = {
            "artifact_name": self.artifact_name,
            "resolution_key": self.resolution_key,
            "resource_type": self.resource_type,
            "resource_id": self.resource_id,
            "name": self.name,
        }
        conditions.extend(
            _resources.c[column] == value for column, value in optional.items() if value is not None
        )
        return conditions


def find_resources(session: Session, query: ResourceQuery) -> list[ResourceRecord]:
    return _resources_where(session, *query.conditions())


def delete_resources(session: Session, query: ResourceQuery) -> int:
    result = session.execute(delete(_resources).where(*query.conditions()))
    return int(result.rowcount or 0)


class StoredDefinitions:
    """Model types and dictionaries as enrichment looks them up, within one read session."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def model_type(self, name: str) -> ModelTypeRecord | None:
        return find_model_type(self.session, name)

    def dictionary(self, name: str) -> DictionaryRecord | None:
        return find_dictionary(self.session, name)
