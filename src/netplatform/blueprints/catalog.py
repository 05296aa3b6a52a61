"""Blueprint archives end to end: open, enrich, validate, store, find, download, delete.

An archive is stored as a blob (byte for byte what was uploaded, or the enriched archive) and a
meta-data row naming it. The blob is durable before the row is written, and the row replaces the
model of the same name and version in one transaction; the replaced model's blob is removed
only after that commit, so a reader never finds a row whose blob is gone for good.
"""

from __future__ import annotations

import io
import uuid
from dataclasses import dataclass
from enum import Enum
from typing import IO

from ..clock import utc_now
from ..store.blobs import BlobStore
from ..store.db import Database
from ..web.errors import PayloadTooLarge
from . import repository
from .archive import Archive, ArchiveLimits
from .cba import Cba
from .enrich import EnrichmentFailed, enrich
from .errors import resource_not_found
from .repository import ModelRecord, StoredDefinitions
from .validate import validate

ARTIFACT_TYPE = "SDNC_MODEL"


class SaveMode(Enum):
    SAVE = "save"  # checked for safety and parsed, not validated: published "N"
    PUBLISH = "publish"  # validated: published "Y"
    ENRICH_AND_PUBLISH = "enrichandpublish"  # enriched, validated, the enriched archive stored


@dataclass
class BlueprintCatalog:
    db: Database
    blobs: BlobStore
    limits: ArchiveLimits

    def open(self, upload: IO[bytes]) -> Cba:
        upload.seek(0, io.SEEK_END)
        size = upload.tell()
        if size > self.limits.max_bytes:
            raise PayloadTooLarge(f"archive of {size} bytes is larger than {self.limits.max_bytes} bytes")
        upload.seek(0)
        return Cba(Archive(upload, self.limits))

    def enrich(self, upload: IO[bytes]) -> bytes:
        return self._enriched(self.open(upload))

    def _enriched(self, cba: Cba) -> bytes:
        with self.db.read() as session:
            try:
                return enrich(cba, StoredDefinitions(session))
            except RecursionError:
                raise EnrichmentFailed("type definitions derive from each other too deeply") from None

    def save(self, upload: IO[bytes], mode: SaveMode) -> ModelRecord:
        cba = self.open(upload)
        content: IO[bytes] = upload
        if mode is SaveMode.ENRICH_AND_PUBLISH:
            enriched = self._enriched(cba)
            cba = Cba(Archive.from_bytes(enriched, self.limits))
            content = io.BytesIO(enriched)
        if mode is not SaveMode.SAVE:
            validate(cba)
        content.seek(0)
        return self._store(cba, content, published="N" if mode is SaveMode.SAVE else "Y")

    def _store(self, cba: Cba, content: IO[bytes], published: str) -> ModelRecord:
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
            replaced = repository.write_with_retry(self.db, repository.replace_model, record)
        except BaseException:
            self.blobs.delete(blob.name)
            raise
        if replaced is not None:
            self.blobs.delete(replaced)
        return record

    # --- reading ---------------------------------------------------------------------------

    def by_id(self, model_id: str) -> ModelRecord:
        with self.db.read() as session:
            record = repository.find_model(session, model_id)
        if record is None:
            raise resource_not_found(f"failed to get blueprint model id({model_id}) from repo")
        return record

    def by_name(self, name: str, version: str) -> ModelRecord:
        with self.db.read() as session:
            record = repository.find_model_by_name(session, name, version)
        if record is None:
            raise resource_not_found(
                f"failed to get blueprint model by name({name}) and version({version}) from repo"
            )
        return record

    def open_content(self, record: ModelRecord) -> IO[bytes]:
        """The stored archive, opened now: a later replacement cannot pull it away mid-download."""
        try:
            return open(self.blobs.path(record.blob_name), "rb")  # the caller closes it
        except FileNotFoundError:
            raise resource_not_found(
                f"blueprint model {record.artifact_name}:{record.artifact_version} was replaced meanwhile"
            ) from None

    def stored_cba(self, record: ModelRecord) -> Cba:
        with self.open_content(record) as content:
            return Cba(Archive(io.BytesIO(content.read()), self.limits))

    # --- deleting --------------------------------------------------------------------------

    def delete_by_id(self, model_id: str) -> None:
        with self.db.write() as session:
            blobs = repository.delete_model(session, model_id)
        if not blobs:
            raise resource_not_found(f"failed to get blueprint model id({model_id}) from repo")
        self._forget(blobs)

    def delete_by_name(self, name: str, version: str) -> None:
        with self.db.write() as session:
            blobs = repository.delete_model_by_name(session, name, version)
        self._forget(blobs)

    def _forget(self, blob_names: list[str]) -> None:
        for name in blob_names:
            self.blobs.delete(name)
