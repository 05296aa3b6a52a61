"""Configuration snapshots: the RUNNING and CANDIDATE configuration text of a resource.

One snapshot per (resource type, resource id, status); storing one replaces it and makes it
the newest. A snapshot is read back verbatim or converted between JSON and XML (:mod:`.formats`).
"""

from __future__ import annotations

import uuid

from ..clock import utc_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest
from .errors import resource_not_found
from .formats import FormattedText, media_type_of, rendered
from .names import checked_name
from .repository.config_snapshots import ConfigRecord, ConfigSnapshotRepository

SNAPSHOT_STATUSES = ("RUNNING", "CANDIDATE")
ANY_STATUS = "ANY"


def snapshot_status(value: str, *, any_allowed: bool = False) -> str | None:
    """The upper-cased status; None for ``ANY`` where that means every status."""
    status = value.upper()
    if any_allowed and status == ANY_STATUS:
        return None
    if status not in SNAPSHOT_STATUSES:
        allowed = (*SNAPSHOT_STATUSES, ANY_STATUS) if any_allowed else SNAPSHOT_STATUSES
        raise BadRequest(f"status ({value}) must be one of {', '.join(allowed)}")
    return status


class ConfigSnapshots:
    """Snapshots stored, found and deleted, each call one transaction; statuses as the client wrote them."""

    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, ConfigSnapshotRepository)

    def in_format(self, resource_type: str, resource_id: str, status: str, format_: str) -> FormattedText:
        """One snapshot in the format asked for (404 when there is none, 406 when it cannot be converted)."""
        snapshot = snapshot_status(status) or ""
        media_type = media_type_of(format_)
        record = self.unit.read(lambda configs: configs.find(resource_type, resource_id, snapshot))
        if record is None:
            raise resource_not_found(
                f"No config snapshot found for resourceType({resource_type}), resourceId({resource_id}), "
                f"status({status})"
            )
        what = f"config snapshot ({resource_type}, {resource_id}, {snapshot})"
        return FormattedText(rendered(record.config_snapshot, media_type, what), media_type)

    def matching(
        self, *, resource_type: str | None = None, resource_id: str | None = None, status: str
    ) -> list[ConfigRecord]:
        """The snapshots of a resource type or id, newest first; ``status`` may be ``ANY``."""
        chosen = snapshot_status(status, any_allowed=True)
        return self.unit.read(
            lambda configs: configs.matching(
                resource_type=resource_type, resource_id=resource_id, status=chosen
            )
        )

    def save(self, resource_type: str, resource_id: str, status: str, snapshot: str) -> ConfigRecord:
        """Store (replace) the snapshot of the resource in ``status``, with a new id."""
        record = ConfigRecord(
            resource_type=checked_name("resourceType", resource_type),
            resource_id=checked_name("resourceId", resource_id),
            status=snapshot_status(status) or "",
            config_snapshot=snapshot,
            id=str(uuid.uuid4()),
            created_date=utc_now(),
        )
        self.unit.write(lambda configs: configs.replace(record))
        return record

    def delete(self, resource_type: str, resource_id: str, status: str) -> None:
        """Delete the snapshot (nothing happens when there is none)."""
        chosen = snapshot_status(status) or ""
        resource_type = checked_name("resourceType", resource_type)
        resource_id = checked_name("resourceId", resource_id)
        self.unit.write(lambda configs: configs.delete(resource_type, resource_id, chosen), retry=False)
