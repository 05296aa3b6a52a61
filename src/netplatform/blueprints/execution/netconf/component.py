"""``component-netconf-executor`` in its declarative form: config deploy, check and rollback
over NETCONF to inventory devices, run by the platform itself (no CBA script).

Inputs: ``device`` (an inventory name, or a list of them), ``template-prefix``,
``resolution-key``, ``datastore``, ``default-operation``, ``confirm-timeout``, ``mode``. A node
template that carries a script, names a device node of its own or gives a host, port or
credential is refused before anything connects: a CBA reaches inventory devices only.

Devices of one step are deployed in parallel, at most ``NETPLATFORM_DEPLOY_CONCURRENCY`` at
once over the whole instance; one device is never deployed to twice at once (a lock in this
process, and a lease in the database for the other instances). A deploy that ended cleanly
leaves its session open for the next one (:mod:`.sessions`,
``NETPLATFORM_DEPLOY_SESSION_IDLE_S``). Each device's result is
recorded (``GET /api/v1/devices/deploys``) and answered in ``response-data``; the step fails
when any device failed.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from lxml import etree

from ....clock import utc_now
from ....store.secrets import UnsealError
from ...repository.devices import FAILURE, SUCCESS, DeployRecord, DeviceRecord
from ...repository.resolution_keys import ResolutionKey
from ..engine import StepContext, StepFailed
from . import configxml
from .device_ops import CHECK, DEPLOY, ROLLBACK, DeviceOperations, Plan
from .session import NetconfFailure
from .sessions import SessionPool

NETCONF_EXECUTOR = "component-netconf-executor"
SCRIPT_INPUTS = ("script-type", "script-class-reference")
REFUSED_INPUTS = (
    "host",
    "port",
    "username",
    "password",
    "private-key",
    "target-ip-address",
    "port-number",
    "login-account",
    "login-key",
)
MODES = (DEPLOY, CHECK, ROLLBACK)
DATASTORES = ("candidate", "running")
DEFAULT_OPERATIONS = ("merge", "replace", "none")
MAX_DEVICES = 1000
MAX_CONFIRM_TIMEOUT = 86_400
LEASE_POLL_S = 0.2


@dataclass(frozen=True)
class DeployRequest:
    devices: list[str]
    mode: str
    template_prefix: str
    resolution_key: str
    datastore: str | None
    default_operation: str
    confirm_timeout: int
    confirm_after: float

    @classmethod
    def of(cls, inputs: dict[str, Any]) -> DeployRequest:
        refused = [name for name in REFUSED_INPUTS if inputs.get(name) not in (None, "")]
        if refused:
            raise StepFailed(
                f"config deploy reaches inventory devices only: {', '.join(refused)} may not be given "
                "(name the device with the input 'device')"
            )
        mode = _choice(inputs, "mode", MODES, DEPLOY)
        prefix = _text(inputs.get("template-prefix"))
        confirm = (_seconds(inputs, "confirm-timeout"), _seconds(inputs, "confirm-after"))
        if confirm[1] and not 0 < confirm[1] < confirm[0]:
            raise StepFailed("confirm-after needs a confirm-timeout longer than it")
        if mode != ROLLBACK and not prefix:
            raise StepFailed(
                "template-prefix is required (the artifact prefix whose resolved template is sent)"
            )
        return cls(
            devices=_device_names(inputs.get("device")),
            mode=mode,
            template_prefix=prefix,
            resolution_key=_text(inputs.get("resolution-key")),
            datastore=_choice(inputs, "datastore", DATASTORES, None),
            default_operation=_choice(inputs, "default-operation", DEFAULT_OPERATIONS, "merge"),
            confirm_timeout=_seconds(inputs, "confirm-timeout"),
            confirm_after=_seconds(inputs, "confirm-after"),
        )


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _choice(inputs: dict[str, Any], name: str, allowed: tuple[str, ...], default: str | None) -> Any:
    value = _text(inputs.get(name)).lower()
    if not value:
        return default
    if value not in allowed:
        raise StepFailed(f"{name} ({value}) must be one of {', '.join(allowed)}")
    return value


def _device_names(value: Any) -> list[str]:
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            raise StepFailed("device is not a name nor a JSON list of names") from None
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise StepFailed("device must name an inventory device, or be a non-empty list of names")
    unique = list(dict.fromkeys(n.strip() for n in names))
    if len(unique) > MAX_DEVICES:
        raise StepFailed(f"device names more than {MAX_DEVICES} devices")
    return unique


def _seconds(inputs: dict[str, Any], name: str) -> int:
    value = inputs.get(name)
    if value in (None, ""):
        return 0
    try:
        seconds = int(value)
    except (TypeError, ValueError):
        raise StepFailed(f"{name} ({value}) is not a whole number of seconds") from None
    if isinstance(value, bool) or not 0 <= seconds <= MAX_CONFIRM_TIMEOUT:
        raise StepFailed(f"{name} ({value}) must be 0 to {MAX_CONFIRM_TIMEOUT} seconds")
    return seconds


def refuse_scripted(context: StepContext) -> None:
    """A node template with a script stays refused (the platform never runs CBA code), and so
    does one that brings its own device node (the reference's netconf-connection)."""
    if any(context.inputs.get(name) not in (None, "") for name in SCRIPT_INPUTS):
        raise StepFailed(
            f"component type {NETCONF_EXECUTOR} is not supported with a script "
            "(script-type/script-class-reference): the platform runs no CBA code. "
            "Leave them out for the declarative config deploy"
        )
    if context.node.requirements:
        raise StepFailed(
            "config deploy reaches inventory devices only: the node template may not name a device "
            f"node ({', '.join(context.node.requirements)}); name the device with the input 'device'"
        )


class DeviceLocks:
    """One lock per device address in this process (two inventory names for one device are one
    device to it); the database lease, per name, covers the other instances."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def of(self, name: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(name, threading.Lock())


class NetconfExecutor:
    """The component (``__call__(context)`` answers ``response-data`` and ``status``)."""

    def __init__(
        self,
        devices: Any,  # blueprints.devices.Devices (typed loosely: that module imports this package)
        stored_template: Callable[[ResolutionKey], str | None],
        pool: ThreadPoolExecutor,
        sessions: SessionPool,
    ) -> None:
        self.devices = devices
        self.stored_template = stored_template
        self.pool = pool
        self.sessions = sessions
        self.locks = DeviceLocks()

    def __call__(self, context: StepContext) -> dict[str, Any]:
        refuse_scripted(context)
        request = DeployRequest.of(context.inputs)
        records = self.devices.records_of(request.devices)
        unknown = [name for name in request.devices if name not in records]
        if unknown:
            raise StepFailed(f"no device named {', '.join(unknown)} in the inventory (/api/v1/devices)")
        config = None if request.mode == ROLLBACK else self._config(context, request)
        futures = [
            self.pool.submit(self._device, context, request, records[name], config)
            for name in request.devices
        ]
        results = []
        for name, future in zip(request.devices, futures, strict=True):
            try:
                results.append(future.result(timeout=max(0.0, context.deadline - time.monotonic())))
            except FutureTimeout:
                results.append(_result(name, request.mode, FAILURE, error="the step's time was up first"))
        data = {
            "mode": request.mode,
            "devices": results,
            "succeeded": [r["device"] for r in results if r["status"] == SUCCESS],
            "failed": [r["device"] for r in results if r["status"] != SUCCESS],
        }
        attributes = {"response-data": data, "status": SUCCESS if not data["failed"] else FAILURE}
        errors = [f"device({r['device']}): {r['errorMessage']}" for r in results if r["status"] != SUCCESS]
        if errors:
            raise StepFailed(*errors, attributes=attributes)
        return attributes

    def _config(self, context: StepContext, request: DeployRequest) -> etree._Element:
        text = _rendered(context, request.template_prefix)
        if text is None:
            key = ResolutionKey(
                context.blueprint.name,
                context.blueprint.version,
                request.template_prefix,
                resolution_key=request.resolution_key,
            )
            text = self.stored_template(key) if request.resolution_key else None
        if text is None:
            where = (
                f" nor stored under resolution-key ({request.resolution_key})"
                if request.resolution_key
                else ""
            )
            raise StepFailed(
                f"no template of prefix ({request.template_prefix}) was rendered by this run{where}"
            )
        try:
            return configxml.config_element(text)
        except configxml.ConfigError as error:
            raise StepFailed(f"template of ({request.template_prefix}): {error}") from None

    def _device(
        self,
        context: StepContext,
        request: DeployRequest,
        record: DeviceRecord,
        config: etree._Element | None,
    ) -> dict[str, Any]:
        lock = self.locks.of(f"{record.host.lower()}:{record.port}")
        if not lock.acquire(timeout=max(0.0, context.deadline - time.monotonic())):
            return _result(
                record.name,
                request.mode,
                FAILURE,
                error="another deploy to this device held it until the step's time was up",
            )
        holder = uuid.uuid4().hex
        try:
            if not self._lease(context, record, holder):
                return _result(
                    record.name,
                    request.mode,
                    FAILURE,
                    error="another instance's deploy to this device held it until the step's time was up",
                )
            finished = False
            started_at, started = utc_now(), time.monotonic()  # the device's own time, not the wait
            try:
                result = self._deploy(context, request, record, config, (started_at, started, holder))
                finished = True
                return result
            finally:
                if not finished:  # the record (which releases the lease) was not written
                    self.devices.release(record.name, holder)
        finally:
            lock.release()

    def _lease(self, context: StepContext, record: DeviceRecord, holder: str) -> bool:
        seconds = (
            max(context.deadline - time.monotonic(), 0.0)
            + record.connect_timeout_s
            + 20 * record.reply_timeout_s
        )
        while True:
            if self.devices.lease(record.name, holder, seconds):
                return True
            if time.monotonic() + LEASE_POLL_S > context.deadline:
                return False
            time.sleep(LEASE_POLL_S)

    def _deploy(
        self,
        context: StepContext,
        request: DeployRequest,
        record: DeviceRecord,
        config: etree._Element | None,
        start: tuple[Any, float, str],
    ) -> dict[str, Any]:
        """The device deployed to, its record written and its lease released in one transaction."""
        started_at, started, holder = start
        outcome = None
        try:
            if config is None:
                config = self._recorded(record.name)
            plan = Plan(
                request.mode,
                request.datastore,
                "replace" if request.mode == ROLLBACK else request.default_operation,
                request.confirm_timeout,
                config,
                request.confirm_after,
            )
            access = self.devices.access(record)
            with self.sessions.session(access) as held:
                operations = DeviceOperations(
                    held.manager, access, plan, lambda: _may_write(context, access.where)
                )
                try:
                    outcome = operations.run()
                finally:
                    outcome = outcome or operations.outcome
                    # kept for the next deploy only when it ended cleanly within the step's time
                    held.keep = operations.clean and time.monotonic() <= context.deadline
            status, error = SUCCESS, None
        except NetconfFailure as failure:
            status, error = FAILURE, str(failure)
        except UnsealError:
            status, error = (
                FAILURE,
                f"device({record.name}): its secret cannot be opened with the platform's keys",
            )
        duration_ms = int((time.monotonic() - started) * 1000)
        self.devices.finish(
            holder,
            DeployRecord(
                device=record.name,
                mode=request.mode,
                status=status,
                request_id=context.run.request_id,
                sub_request_id=context.run.sub_request_id,
                blueprint_name=context.blueprint.name,
                blueprint_version=context.blueprint.version,
                datastore=outcome.datastore if outcome else None,
                sent=outcome.sent if outcome else None,
                diff=outcome.diff if outcome else None,
                before_config=outcome.before if outcome and status == SUCCESS else None,
                error_message=error,
                duration_ms=duration_ms,
                start_date=started_at,
            ),
        )
        return _result(
            record.name,
            request.mode,
            status,
            error=error,
            datastore=outcome.datastore if outcome else None,
            sent=outcome.sent if outcome else None,
            diff=outcome.diff if outcome else None,
            answer=outcome.answer if outcome and status == SUCCESS else error,
            duration_ms=duration_ms,
        )

    def _recorded(self, name: str) -> etree._Element:
        """What rollback restores: running as it was before the device's last successful deploy."""
        last = self.devices.last_deployed(name)
        if last is None or not last.before_config:
            raise NetconfFailure(
                f"device({name}): no successful deploy of this device by the platform to roll back"
            )
        data = configxml.data_element(last.before_config)
        config = etree.Element(f"{{{configxml.BASE_NS}}}config", nsmap={None: configxml.BASE_NS})
        for child in list(data):
            config.append(child)
        return config


def _rendered(context: StepContext, prefix: str) -> str | None:
    """The template of ``prefix`` a resolution step of this run rendered (the latest one)."""
    found = None
    for attributes in context.scope.attributes.values():
        params = attributes.get("assignment-params")
        if isinstance(params, dict) and isinstance(params.get(prefix), str):
            found = params[prefix]
    return found


def _may_write(context: StepContext, where: str) -> None:
    if time.monotonic() > context.deadline:
        raise NetconfFailure(f"{where}: the step's time was up: nothing more is written")


def _result(
    device: str,
    mode: str,
    status: str,
    *,
    error: str | None = None,
    datastore: str | None = None,
    sent: str | None = None,
    diff: str | None = None,
    answer: str | None = None,
    duration_ms: int = 0,
) -> dict[str, Any]:
    return {
        "device": device,
        "mode": mode,
        "status": status,
        "datastore": datastore,
        "sent": sent,
        "diff": diff,
        "answer": answer,
        "errorMessage": error,
        "durationMs": duration_ms,
    }
