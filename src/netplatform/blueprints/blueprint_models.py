"""Blueprint models end to end: open, enrich, validate, store, find, download, delete.

An archive is stored as a blob (byte for byte what was uploaded, or the enriched archive; in the
database on PostgreSQL, a file on SQLite) and a meta-data row naming it. The blob is durable
before the row is written, and the row replaces the model of the same name and version in one
transaction; the replaced model's blob is removed only after that commit, so a reader never
finds a row whose blob is gone for good.
"""

from __future__ import annotations

import io
import uuid
from dataclasses import dataclass
from enum import Enum
from typing import IO, Any, BinaryIO

from ..clock import utc_now
from ..store.blobs import BlobStorage
from ..store.db import Database
from ..store.generations import GenerationCache
from ..store.unit_of_work import UnitOfWork
from ..web.errors import PayloadTooLarge, ServiceUnavailable
from .catalog.archive import Archive, ArchiveLimits
from .catalog.cba import Cba
from .catalog.enrich import EnrichmentFailed, enrich
from .catalog.expansion import ExpansionLimits
from .catalog.validate import ValidationFailed, refuse_expansion_bombs, refuse_step_cycles, validate
from .catalog.workflows import workflow_spec
from .errors import IO_FILE_INTERRUPT, resource_not_found
from .repository.blueprint_models import MODEL_SORT_COLUMNS, BlueprintModelRepository, ModelRecord
from .repository.stored_definitions import StoredDefinitions
from .tables import CATALOG_SCOPE, generations

ARTIFACT_TYPE = "SDNC_MODEL"
MODEL_SORTS = tuple(MODEL_SORT_COLUMNS)
"""The orders a page of models can be sorted in: ``DATE``, ``NAME``, ``VERSION``."""


class SaveMode(Enum):
    SAVE = "save"  # checked for safety and parsed, not validated: published "N"
    PUBLISH = "publish"  # validated: published "Y"
    ENRICH_AND_PUBLISH = "enrichandpublish"  # enriched, validated, the enriched archive stored


@dataclass(frozen=True)
class PageRequest:
    """One page of models: ``page`` counts pages of ``limit`` models; ``sort`` is one of MODEL_SORTS."""

    limit: int
    page: int
    sort: str
    descending: bool
    published: str | None
    keyword: str | None = None


class BlueprintModels:
    def __init__(
        self,
        db: Database,
        blobs: BlobStorage,
        limits: ArchiveLimits,
        expansion: ExpansionLimits | None = None,
    ) -> None:
        self.expansion = expansion or ExpansionLimits()
        self.unit = UnitOfWork(db, BlueprintModelRepository)
        self.definitions = UnitOfWork(db, StoredDefinitions)
        # Models by name and version, each read once per catalog generation (a save or delete
        # moves it): what every workflow run looks up first.
        self.by_name_cache: GenerationCache[BlueprintModelRepository, ModelRecord | None] = GenerationCache(
            self.unit, generations, CATALOG_SCOPE
        )
        self.blobs = blobs
        self.limits = limits

    def open(self, upload: IO[bytes]) -> Cba:
        upload.seek(0, io.SEEK_END)
        size = upload.tell()
        if size > self.limits.max_bytes:
            raise PayloadTooLarge(f"archive of {size} bytes is larger than {self.limits.max_bytes} bytes")
        upload.seek(0)
        return Cba(Archive(upload, self.limits))

    def enrich(self, upload: BinaryIO) -> bytes:
        """The archive completed from the stored model types and dictionaries; nothing is stored."""
        cba = self.open(upload)
        refuse_expansion_bombs(cba, self.expansion)
        return self._enriched(cba)

    def _enriched(self, cba: Cba) -> bytes:
        try:
            return self.definitions.read(lambda definitions: enrich(cba, definitions))
        except RecursionError:
            raise EnrichmentFailed("type definitions derive from each other too deeply") from None

    def save(self, upload: BinaryIO, mode: SaveMode) -> ModelRecord:
        """Store the archive as ``mode`` says; on enrichandpublish a failure of the rules is a 503."""
        if mode is not SaveMode.ENRICH_AND_PUBLISH:
            return self._save(upload, mode)
        try:
            return self._save(upload, mode)
        except (EnrichmentFailed, ValidationFailed) as failure:
            raise ServiceUnavailable(
                failure.message, code=IO_FILE_INTERRUPT, extra=failure.extra
            ) from failure

    def _save(self, upload: BinaryIO, mode: SaveMode) -> ModelRecord:
        cba = self.open(upload)
        refuse_step_cycles(cba)
        refuse_expansion_bombs(cba, self.expansion)
        content: BinaryIO = upload
        if mode is SaveMode.ENRICH_AND_PUBLISH:
            enriched = self._enriched(cba)
            cba = Cba(Archive.from_bytes(enriched, self.limits))
            content = io.BytesIO(enriched)
        if mode is not SaveMode.SAVE:
            validate(cba)
        content.seek(0)
        return self._store(cba, content, published="N" if mode is SaveMode.SAVE else "Y")

    def _store(self, cba: Cba, content: BinaryIO, published: str) -> ModelRecord:
        blob = self.blobs.put_file(content)
        meta = cba.meta
        record = ModelRecord(
            id=str(uuid.uuid4()),
            artifact_name=meta.template_name,
            artifact_version=meta.template_version,
            artifact_type=ARTIFACT_TYPE,
            artifact_description=f"Controller Blueprint for {meta.template_name}:{meta.template_version}",
            published=published,
            updated_by=meta.created_by,
            tags=meta.template_tags,
            created_date=utc_now(),
            blob_name=blob.name,
            blob_size=blob.size,
            workflows=cba.workflow_names,
        )
        try:
            replaced = self.unit.write(lambda models: models.replace(record))
        except BaseException:
            self.blobs.delete(blob.name)
            raise
        if replaced is not None:
            self.blobs.delete(replaced)
        return record

    # --- reading ---------------------------------------------------------------------------

    def all(self) -> list[ModelRecord]:
        return self.unit.read(lambda models: models.all())

    def with_keyword(self, keyword: str) -> list[ModelRecord]:
        """Models one of whose meta-data items is ``keyword`` (whole item, any case)."""
        return self.unit.read(lambda models: models.with_keyword(keyword))

    def with_tag_text(self, text: str) -> list[ModelRecord]:
        return self.unit.read(lambda models: models.with_tag_text(text))

    def page(self, request: PageRequest) -> tuple[list[ModelRecord], int]:
        """The models of one page, and how many match in all."""
        return self.unit.read(
            lambda models: models.page(
                keyword=request.keyword,
                published=request.published,
                sort=request.sort,
                descending=request.descending,
                limit=request.limit,
                page=request.page,
            )
        )

    def by_id(self, model_id: str) -> ModelRecord:
        record = self.unit.read(lambda models: models.find(model_id))
        if record is None:
            raise resource_not_found(f"failed to get blueprint model id({model_id}) from repo")
        return record

    def by_name(self, name: str, version: str) -> ModelRecord:
        record = self.unit.read(lambda models: models.find_by_name(name, version))
        return _found(record, name, version)

    def current_by_name(self, name: str, version: str) -> ModelRecord:
        """:meth:`by_name` through the catalog's generation: one read of the generation when the
        model was read under it already (on this instance), never a stale one (any instance's
        save or delete moves the generation in its commit)."""

        found = self.by_name_cache.get((name, version), lambda models: models.find_by_name(name, version))
        return _found(found, name, version)

    def open_content(self, record: ModelRecord) -> IO[bytes]:
        """The stored archive, opened now: a later replacement cannot pull it away mid-download."""
        try:
            return self.blobs.open(record.blob_name)  # the caller closes it
        except FileNotFoundError:
            raise resource_not_found(
                f"blueprint model {record.artifact_name}:{record.artifact_version} was replaced meanwhile"
            ) from None

    def stored_cba(self, record: ModelRecord) -> Cba:
        with self.open_content(record) as content:
            return Cba(Archive(io.BytesIO(content.read()), self.limits))

    def workflow_spec(self, name: str, version: str, workflow: str) -> dict[str, Any]:
        """Inputs, outputs and data types of one workflow of the stored model ``name:version``."""
        cba = self.stored_cba(self.by_name(name, version))
        return workflow_spec(cba, name, version, workflow)

    # --- deleting --------------------------------------------------------------------------

    def delete_by_id(self, model_id: str) -> None:
        blobs = self.unit.write(lambda models: models.delete(model_id), retry=False)
        if not blobs:
            raise resource_not_found(f"failed to get blueprint model id({model_id}) from repo")
        self._forget(blobs)

    def delete_by_name(self, name: str, version: str) -> None:
        blobs = self.unit.write(lambda models: models.delete_by_name(name, version), retry=False)
        self._forget(blobs)

    def _forget(self, blob_names: list[str]) -> None:
        for name in blob_names:
            self.blobs.delete(name)


def _found(record: ModelRecord | None, name: str, version: str) -> ModelRecord:
    if record is None:
        raise resource_not_found(
            f"failed to get blueprint model by name({name}) and version({version}) from repo"
        )
    return record
