"""What one config-deploy step does on one device, over an open session (RFC 6241).

Deploy on a device with ``:candidate``: lock candidate and running; discard stale candidate
changes; read running (kept for rollback); edit the candidate (``test-option test-then-set``
when the device validates: the device checks the edit before it is set); read the candidate
(what running must become); commit (confirmed when ``confirm-timeout`` > 0); read running back
and compare it with the candidate read before the commit; confirm; unlock. A separate
``<validate>`` is not sent: yuma123 answers ``<ok/>`` to ``<validate>`` and then commits
nothing, and the edit's test-option is the same validation. The read-back catches any device
that says ``<ok/>`` and does not do it.

Without ``:candidate`` (``:writable-running``): lock running, read it, edit it (rolled back on
error when the device can), read it back and check that every element sent is there, unlock.

Check reads running, makes the edit in the candidate, reads it and discards it: the diff is the
device's own merge, and running is never written. Rollback is a deploy of a recorded running
configuration with ``default-operation replace``.

Any failure discards the candidate and unlocks what was locked before it is raised.

``clean`` tells whether the session may be kept for the next deploy (:mod:`.sessions`): the
plan succeeded, or failed on the device's own rpc-error (or a capability it lacks) and every
discard and unlock after it was answered <ok/>, with no confirmed commit sent. A timeout, a
transport error, the step's time running out, a read-back that differs or a confirmed commit
(which belongs to its session: the device reverts it when the session ends) leave it False.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree
from ncclient.manager import Manager

from . import configxml
from .session import DeviceAccess, NetconfFailure, rpc_failure

log = logging.getLogger(__name__)

CANDIDATE = "candidate"
RUNNING = "running"
DEPLOY, CHECK, ROLLBACK = "deploy", "check", "rollback"
_CAPABILITY = "urn:ietf:params:netconf:capability:"


@dataclass(frozen=True)
class Plan:
    mode: str
    datastore: str | None  # None: candidate when the device has it, else running
    default_operation: str
    confirm_timeout: int
    config: etree._Element  # the <config> to send (a rollback's: the recorded running config)
    confirm_after: float = 0.0  # seconds the new configuration runs, unconfirmed, before the read-back


@dataclass
class Outcome:
    datastore: str = ""
    sent: str = ""
    diff: str = ""
    before: str | None = None  # running before a deploy, as <data> XML (what rollback restores)
    answer: str = ""
    steps: list[str] = field(default_factory=list)


def has(manager: Manager, capability: str) -> bool:
    return any(uri.startswith(_CAPABILITY + capability) for uri in manager.server_capabilities)


class DeviceOperations:
    """One plan carried out on one device; ``may_write`` raises when the step's time is up."""

    def __init__(
        self, manager: Manager, access: DeviceAccess, plan: Plan, may_write: Callable[[], None]
    ) -> None:
        self.m, self.access, self.plan, self.may_write = manager, access, plan, may_write
        self.outcome = Outcome()
        self.locked: list[str] = []
        self.clean = False
        self._confirmed_sent = False

    def run(self) -> Outcome:
        try:
            datastore = self._datastore()
        except NetconfFailure:
            self.clean = True  # nothing was sent
            raise
        self.outcome.datastore = datastore
        self.outcome.sent = configxml.config_text(self.plan.config)
        try:
            if datastore == CANDIDATE:
                self._on_candidate()
            else:
                self._on_running()
        except BaseException as error:
            cleaned = self._abandon()
            self.clean = cleaned and _answered(error) and not self._confirmed_sent
            raise
        self.clean = self._unlock_all()  # a confirmed commit was confirmed: nothing pending
        return self.outcome

    def _datastore(self) -> str:
        candidate, running = has(self.m, "candidate:"), has(self.m, "writable-running:")
        wanted = self.plan.datastore
        if wanted == CANDIDATE and not candidate:
            raise self._failure("the device does not announce :candidate")
        if wanted == RUNNING and not running:
            raise self._failure("the device does not announce :writable-running")
        chosen = wanted or (CANDIDATE if candidate else RUNNING if running else None)
        if chosen is None:
            raise self._failure("the device announces neither :candidate nor :writable-running")
        if self.plan.mode == CHECK and chosen != CANDIDATE:
            raise self._failure(
                "check needs a device with :candidate (the edit is tried there and discarded)"
            )
        if self.plan.confirm_timeout > 0 and (chosen != CANDIDATE or not has(self.m, "confirmed-commit:")):
            raise self._failure("a confirmed commit needs :candidate and :confirmed-commit")
        return chosen

    def _failure(self, message: str) -> NetconfFailure:
        return NetconfFailure(f"{self.access.where}: {message}", kind="capability")

    def _call(self, operation: str, call: Callable[[], object]) -> object:
        self.outcome.steps.append(operation)
        try:
            return call()
        except NetconfFailure:
            raise
        except Exception as error:
            raise rpc_failure(self.access, operation, error) from None

    def _lock(self, datastore: str) -> None:
        self._call(f"lock {datastore}", lambda: self.m.lock(target=datastore))
        self.locked.append(datastore)

    def _read(self, datastore: str) -> etree._Element:
        reply = self._call(f"get-config {datastore}", lambda: self.m.get_config(source=datastore))
        return configxml.data_element(reply.data_xml)  # type: ignore[attr-defined]

    def _edit(self, target: str) -> None:
        options: dict[str, str] = {"default_operation": self.plan.default_operation}
        if has(self.m, "validate:"):
            options["test_option"] = "test-then-set"
        if target == RUNNING and has(self.m, "rollback-on-error:"):
            options["error_option"] = "rollback-on-error"
        config = self.outcome.sent
        self._call(f"edit-config {target}", lambda: self.m.edit_config(config, target=target, **options))

    def _on_candidate(self) -> None:
        self._lock(CANDIDATE)
        if self.plan.mode != CHECK:
            self._lock(RUNNING)
        self._call("discard-changes", self.m.discard_changes)
        before = self._read(RUNNING)
        self.outcome.before = etree.tostring(before, encoding="unicode")
        self._edit(CANDIDATE)
        intended = self._read(CANDIDATE)
        self.outcome.diff = configxml.diff(before, intended, "running", "after")
        if self.plan.mode == CHECK:
            self._call("discard-changes", self.m.discard_changes)
            self.outcome.answer = "checked: nothing was written"
            return
        self.may_write()
        confirmed = self.plan.confirm_timeout > 0
        self._commit(confirmed)
        try:
            if confirmed and self.plan.confirm_after > 0:
                time.sleep(self.plan.confirm_after)  # the new configuration runs, unconfirmed
            after = self._read(RUNNING)
            if not configxml.same(after, intended):
                raise NetconfFailure(
                    f"{self.access.where}: the device answered <ok/> to the commit, but its running "
                    "configuration read back differs from the candidate that was committed",
                    kind="read-back",
                )
            if confirmed:
                self.may_write()
                self._call("commit (confirming)", self.m.commit)
        except NetconfFailure as failure:
            if not confirmed:
                raise
            raise NetconfFailure(f"{failure}; {self._cancel(before)}", kind=failure.kind) from None
        self.outcome.answer = "ok"

    def _commit(self, confirmed: bool) -> None:
        if not confirmed:
            self._call("commit", self.m.commit)
            return
        # No <persist>: the confirmed commit belongs to this session, so the device reverts when
        # the session ends unconfirmed as well as at the timeout (yuma123 2.13 never reverts a
        # persisted confirmed commit at its timeout).
        timeout = str(self.plan.confirm_timeout)
        self._confirmed_sent = True
        self._call(f"commit (confirmed, {timeout} s)", lambda: self.m.commit(confirmed=True, timeout=timeout))

    def _cancel(self, before: etree._Element) -> str:
        """Not confirmed: running back now, and read back (what happened, for the failure).
        Running is unlocked first: yuma123 answers <ok/> to a cancel-commit while this session
        locks running, and restores nothing ("restore running config failed (config locked)")."""
        try:
            if RUNNING in self.locked:
                self.m.unlock(target=RUNNING)
                self.locked.remove(RUNNING)
            self._call("cancel-commit", self.m.cancel_commit)
            restored = configxml.same(self._read(RUNNING), before)
        except NetconfFailure as failure:
            log.warning("%s: cancelling the confirmed commit failed: %s", self.access.where, failure)
            return (
                f"the commit was not confirmed and cancelling it failed ({failure}): "
                "the device reverts when the session ends"
            )
        if restored:
            return "the commit was not confirmed: cancelled, running is back to what it was"
        return "the commit was not confirmed and cancelled, but running read back is not what it was"

    def _on_running(self) -> None:
        self._lock(RUNNING)
        before = self._read(RUNNING)
        self.outcome.before = etree.tostring(before, encoding="unicode")
        self.may_write()
        self._edit(RUNNING)
        after = self._read(RUNNING)
        self.outcome.diff = configxml.diff(before, after, "running", "after")
        replaced = self.plan.default_operation == "replace"
        if not (
            configxml.same(after, self.plan.config)
            if replaced
            else configxml.contains(after, self.plan.config)
        ):
            raise NetconfFailure(
                f"{self.access.where}: the device answered <ok/> to the edit, but its running "
                "configuration read back does not hold what was sent",
                kind="read-back",
            )
        self.outcome.answer = "ok"

    def _abandon(self) -> bool:
        """After a failure: the candidate discarded, every lock released (errors only logged).
        True when the device answered each of them <ok/>."""
        discarded = True
        if CANDIDATE in self.locked:
            try:
                self.m.discard_changes()
            except Exception:
                discarded = False
                log.warning("%s: discard-changes after a failure failed", self.access.where, exc_info=True)
        return self._unlock_all() and discarded

    def _unlock_all(self) -> bool:
        unlocked = True
        for datastore in reversed(self.locked):
            try:
                self.m.unlock(target=datastore)
            except Exception:
                unlocked = False
                log.warning("%s: unlock %s failed", self.access.where, datastore, exc_info=True)
        self.locked.clear()
        return unlocked


# Failures after which the session's state is not known (a reply may still come, the transport
# broke, the step stopped midway, or the device did not do what it answered): never kept.
_UNCERTAIN = frozenset({"timeout", "transport", "error", "read-back"})


def _answered(error: BaseException) -> bool:
    """The failure is the device's own rpc-error reply (the session is in step with it)."""
    return isinstance(error, NetconfFailure) and error.kind not in _UNCERTAIN
