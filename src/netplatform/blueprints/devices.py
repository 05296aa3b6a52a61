"""The device inventory: the only devices config deploy reaches, with their sealed credentials
and pinned SSH host keys; the check of a device, the trust of a new host key, the leases that
keep two deploys off one device, and the record of deploys.

Secrets are sealed (store/secrets.py) before they reach the repository and opened only in
:meth:`Devices.access`, for a NETCONF session; no answer, log line or audit record holds them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError

from ..clock import utc_now, wire_time
from ..store.db import Database
from ..store.secrets import Sealer, UnsealError
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest, Conflict
from .errors import resource_not_found
from .execution.netconf.session import (
    DeviceAccess,
    NetconfFailure,
    close,
    fingerprint,
    load_private_key,
    open_session,
    parse_host_key,
    presented_key,
)
from .names import checked_name
from .repository.devices import DeployRecord, DeviceRecord, InventoryRepository
from .schemas import DeviceCreate, DeviceSettings

PASSWORD = "password"  # noqa: S105 (the name of a login method, not a secret)
PRIVATE_KEY = "private-key"
TRUSTED, CHANGED, UNKNOWN = "trusted", "changed", "unknown"


def _not_found(name: str) -> Exception:
    return resource_not_found(f"No device found with name ({name})")


def _checked_secrets(password: str | None, private_key: str | None, *, required: bool) -> None:
    if password is not None and private_key is not None:
        raise BadRequest("give a password or a privateKey, not both")
    if required and password is None and private_key is None:
        raise BadRequest("a device needs a password or a privateKey")
    if private_key is not None:
        try:
            load_private_key(private_key)
        except ValueError as error:
            raise BadRequest(f"privateKey: {error}") from None


def _host_key(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return parse_host_key(text)
    except ValueError as error:
        raise BadRequest(f"hostKey: {error}") from None


def device_body(record: DeviceRecord) -> dict[str, Any]:
    """A device as answered: never its password or private key."""
    return {
        "name": record.name,
        "host": record.host,
        "port": record.port,
        "username": record.username,
        "authentication": PRIVATE_KEY if record.private_key is not None else PASSWORD,
        "hostKey": record.host_key,
        "hostKeyFingerprint": fingerprint(record.host_key) if record.host_key else None,
        "connectTimeout": record.connect_timeout_s,
        "replyTimeout": record.reply_timeout_s,
        "site": record.site,
        "createdDate": wire_time(record.created_date),
        "updatedDate": wire_time(record.updated_date),
    }


def deploy_body(record: DeployRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "device": record.device,
        "mode": record.mode,
        "status": record.status,
        "requestId": record.request_id,
        "subRequestId": record.sub_request_id,
        "blueprintName": record.blueprint_name,
        "blueprintVersion": record.blueprint_version,
        "datastore": record.datastore,
        "sent": record.sent,
        "diff": record.diff,
        "errorMessage": record.error_message,
        "durationMs": record.duration_ms,
        "startDate": wire_time(record.start_date),
    }


class Devices:
    """Each method one transaction (a check or a trust: one NETCONF connection, then one)."""

    def __init__(self, db: Database, sealer: Callable[[], Sealer]) -> None:
        self.unit = UnitOfWork(db, InventoryRepository)
        self._sealer = sealer

    @property
    def sealer(self) -> Sealer:
        """Loaded on first use: an app built only to list its routes makes no key."""
        return self._sealer()

    # --- the inventory ----------------------------------------------------------------------

    def create(self, body: DeviceCreate) -> DeviceRecord:
        name = checked_name("name", body.name)
        _checked_secrets(body.password, body.privateKey, required=True)
        now = utc_now()
        record = DeviceRecord(
            name=name,
            host=body.host.strip(),
            port=body.port,
            username=body.username,
            password=self.sealer.seal_optional(body.password),
            private_key=self.sealer.seal_optional(body.privateKey),
            host_key=_host_key(body.hostKey),
            connect_timeout_s=body.connectTimeout,
            reply_timeout_s=body.replyTimeout,
            site=body.site,
            created_date=now,
            updated_date=now,
        )

        def create(inventory: InventoryRepository) -> None:
            if inventory.devices.get(name) is not None:
                raise Conflict(f"a device named ({name}) exists already")
            inventory.devices.insert(record)

        try:
            self.unit.write(create)
        except IntegrityError:
            raise Conflict(f"a device named ({name}) exists already") from None
        return record

    def listing(self, site: str | None = None) -> list[DeviceRecord]:
        return self.unit.read(lambda inventory: inventory.devices.listing(site))

    def get(self, name: str) -> DeviceRecord:
        record = self.unit.read(lambda inventory: inventory.devices.get(name))
        if record is None:
            raise _not_found(name)
        return record

    def update(self, name: str, body: DeviceSettings) -> DeviceRecord:
        """The settings replaced; an absent secret keeps the stored one. The pinned host key may
        be set here while none is pinned; changing it is :meth:`trust` (administrators)."""
        _checked_secrets(body.password, body.privateKey, required=False)
        host_key = _host_key(body.hostKey)
        values: dict[str, Any] = {
            "host": body.host.strip(),
            "port": body.port,
            "username": body.username,
            "connect_timeout_s": body.connectTimeout,
            "reply_timeout_s": body.replyTimeout,
            "site": body.site,
            "updated_date": utc_now(),
        }
        if body.password is not None:
            values.update(password=self.sealer.seal(body.password), private_key=None)
        if body.privateKey is not None:
            values.update(private_key=self.sealer.seal(body.privateKey), password=None)

        def update(inventory: InventoryRepository) -> DeviceRecord:
            found = inventory.devices.get(name)
            if found is None:
                raise _not_found(name)
            if host_key is not None and found.host_key is not None and host_key != found.host_key:
                raise BadRequest(
                    "the pinned host key is changed by trusting the key the device presents "
                    f"(POST /api/v1/devices/{name}/trust-host-key, administrators only)"
                )
            if host_key is not None:
                values["host_key"] = host_key
            inventory.devices.update(name, values)
            updated = inventory.devices.get(name)
            assert updated is not None
            return updated

        return self.unit.write(update)

    def delete(self, name: str) -> None:
        if not self.unit.write(lambda inventory: inventory.devices.delete(name)):
            raise _not_found(name)

    # --- reaching a device ------------------------------------------------------------------

    def access(self, record: DeviceRecord) -> DeviceAccess:
        """The device's connection settings with its secret opened, for one session."""
        return DeviceAccess(
            name=record.name,
            host=record.host,
            port=record.port,
            username=record.username,
            password=self.sealer.open_optional(record.password),
            private_key=self.sealer.open_optional(record.private_key),
            host_key=record.host_key,
            connect_timeout_s=record.connect_timeout_s,
            reply_timeout_s=record.reply_timeout_s,
        )

    def check(self, name: str) -> dict[str, Any]:
        """Connect (pinned key checked before anything is sent), answer the capabilities."""
        record = self.get(name)
        try:
            access = self.access(record)
        except UnsealError:
            raise Conflict(
                f"the secret of device ({name}) cannot be opened with the platform's keys"
            ) from None
        started = time.monotonic()
        answer: dict[str, Any] = {
            "device": name,
            "ok": False,
            "hostKeyStatus": TRUSTED if record.host_key else UNKNOWN,
            "presentedHostKey": record.host_key,
            "presentedFingerprint": fingerprint(record.host_key) if record.host_key else None,
            "capabilities": [],
            "errorMessage": None,
        }
        try:
            manager, _ = open_session(access)
        except NetconfFailure as failure:
            answer["errorMessage"] = str(failure)
            if failure.kind == "host-key":
                answer["hostKeyStatus"] = CHANGED if record.host_key else UNKNOWN
                presented = failure.presented_key
                answer["presentedHostKey"] = presented
                answer["presentedFingerprint"] = fingerprint(presented) if presented else None
        else:
            try:
                answer["capabilities"] = sorted(manager.server_capabilities)
                answer["ok"] = True
            finally:
                close(manager)
        answer["elapsedMs"] = int((time.monotonic() - started) * 1000)
        return answer

    def trust(self, name: str, wanted_fingerprint: str) -> DeviceRecord:
        """Pin the key the device presents now, when it is the one the administrator saw."""
        record = self.get(name)
        try:
            presented = presented_key(replace(self.access(record), host_key=None))
        except NetconfFailure as failure:
            raise Conflict(f"the device's host key could not be read: {failure}") from None
        seen = fingerprint(presented)
        if seen != wanted_fingerprint.strip():
            raise Conflict(
                f"the device presents {seen}, not {wanted_fingerprint.strip()}: nothing was changed"
            )

        def pin(inventory: InventoryRepository) -> DeviceRecord:
            if not inventory.devices.update(name, {"host_key": presented, "updated_date": utc_now()}):
                raise _not_found(name)
            updated = inventory.devices.get(name)
            assert updated is not None
            return updated

        return self.unit.write(pin)

    # --- deploys ----------------------------------------------------------------------------

    def records_of(self, names: list[str]) -> dict[str, DeviceRecord]:
        found = self.unit.read(lambda inventory: inventory.devices.many(names))
        return {record.name: record for record in found}

    def lease(self, name: str, holder: str, seconds: float) -> bool:
        now = utc_now()
        until = now + timedelta(seconds=seconds)
        return self.unit.write(lambda inventory: inventory.devices.lease(name, holder, now, until))

    def release(self, name: str, holder: str) -> None:
        self.unit.write(lambda inventory: inventory.devices.release(name, holder))

    def finish(self, holder: str, deploy: DeployRecord) -> None:
        """A deploy recorded and its device's lease released, in one transaction."""

        def finish(inventory: InventoryRepository) -> None:
            inventory.deploys.add(deploy)
            inventory.devices.release(deploy.device, holder)

        self.unit.write(finish)

    def last_deployed(self, name: str) -> DeployRecord | None:
        return self.unit.read(lambda inventory: inventory.deploys.last_deployed(name))

    def deploys(
        self,
        *,
        device: str | None = None,
        request_id: str | None = None,
        sub_request_id: str | None = None,
        limit: int = 50,
    ) -> list[DeployRecord]:
        return self.unit.read(
            lambda inventory: inventory.deploys.matching(
                device=device, request_id=request_id, sub_request_id=sub_request_id, limit=limit
            )
        )
