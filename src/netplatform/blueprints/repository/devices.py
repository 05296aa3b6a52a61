"""The device inventory and the record of config deploys, in the caller's transaction.

Secrets arrive here sealed (``password``, ``private_key``); this module never sees them in clear.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.orm import Session

from ..tables import device_deploys as _deploys
from ..tables import devices as _devices
from ._sql import rows_changed

SUCCESS = "success"
FAILURE = "failure"
DEPLOY = "deploy"


@dataclass(frozen=True)
class DeviceRecord:
    name: str
    host: str
    port: int
    username: str
    password: str | None  # sealed
    private_key: str | None  # sealed
    host_key: str | None
    connect_timeout_s: float
    reply_timeout_s: float
    site: str | None
    created_date: datetime
    updated_date: datetime


@dataclass(frozen=True)
class DeployRecord:
    device: str
    mode: str
    status: str
    request_id: str
    sub_request_id: str
    blueprint_name: str
    blueprint_version: str
    datastore: str | None
    sent: str | None
    diff: str | None
    before_config: str | None
    error_message: str | None
    duration_ms: int
    start_date: datetime
    id: int | None = None


_DEVICE_COLUMNS = [_devices.c[f.name] for f in fields(DeviceRecord)]
_DEPLOY_COLUMNS = [_deploys.c[f.name] for f in fields(DeployRecord)]


def _device(row: Any) -> DeviceRecord:
    return DeviceRecord(**row._mapping)


def _deploy(row: Any) -> DeployRecord:
    return DeployRecord(**row._mapping)


class DeviceRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, name: str) -> DeviceRecord | None:
        row = self.session.execute(select(*_DEVICE_COLUMNS).where(_devices.c.name == name)).first()
        return None if row is None else _device(row)

    def many(self, names: list[str]) -> list[DeviceRecord]:
        rows = self.session.execute(select(*_DEVICE_COLUMNS).where(_devices.c.name.in_(names))).all()
        return [_device(row) for row in rows]

    def listing(self, site: str | None = None) -> list[DeviceRecord]:
        query = select(*_DEVICE_COLUMNS).order_by(_devices.c.name)
        if site is not None:
            query = query.where(_devices.c.site == site)
        return [_device(row) for row in self.session.execute(query).all()]

    def insert(self, record: DeviceRecord) -> None:
        values = {f.name: getattr(record, f.name) for f in fields(DeviceRecord)}
        self.session.execute(insert(_devices).values(values))

    def update(self, name: str, values: dict[str, Any]) -> bool:
        result = self.session.execute(update(_devices).where(_devices.c.name == name).values(values))
        return rows_changed(result) == 1

    def delete(self, name: str) -> bool:
        return rows_changed(self.session.execute(delete(_devices).where(_devices.c.name == name))) == 1

    def lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool:
        """Take the device for one deploy (True) unless another holder's lease is still running."""
        free = or_(_devices.c.deploy_holder.is_(None), _devices.c.deploy_until < now)
        statement = (
            update(_devices)
            .where(_devices.c.name == name, free)
            .values(deploy_holder=holder, deploy_until=until)
        )
        return rows_changed(self.session.execute(statement)) == 1

    def release(self, name: str, holder: str) -> None:
        statement = (
            update(_devices)
            .where(_devices.c.name == name, _devices.c.deploy_holder == holder)
            .values(deploy_holder=None, deploy_until=None)
        )
        self.session.execute(statement)


class DeployRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, record: DeployRecord) -> None:
        values = {f.name: getattr(record, f.name) for f in fields(DeployRecord) if f.name != "id"}
        self.session.execute(insert(_deploys).values(values))

    def last_deployed(self, device: str) -> DeployRecord | None:
        """The latest successful deploy of the device (its ``before_config`` is what rollback restores)."""
        query = (
            select(*_DEPLOY_COLUMNS)
            .where(_deploys.c.device == device, _deploys.c.mode == DEPLOY, _deploys.c.status == SUCCESS)
            .order_by(_deploys.c.id.desc())
            .limit(1)
        )
        row = self.session.execute(query).first()
        return None if row is None else _deploy(row)

    def matching(
        self,
        *,
        device: str | None = None,
        request_id: str | None = None,
        sub_request_id: str | None = None,
        limit: int = 50,
    ) -> list[DeployRecord]:
        """Newest first."""
        query = select(*_DEPLOY_COLUMNS).order_by(_deploys.c.id.desc()).limit(limit)
        if device is not None:
            query = query.where(_deploys.c.device == device)
        if request_id is not None:
            query = query.where(_deploys.c.request_id == request_id)
        if sub_request_id is not None:
            query = query.where(_deploys.c.sub_request_id == sub_request_id)
        return [_deploy(row) for row in self.session.execute(query).all()]


class InventoryRepository:
    """Both, over one session: a deploy's record and its device's lease in one transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.devices = DeviceRepository(session)
        self.deploys = DeployRepository(session)
