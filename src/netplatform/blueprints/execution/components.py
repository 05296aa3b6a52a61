"""The components besides resolution: ``component-resource-deletion`` over the template and
resource stores, ``component-config-snapshots-executor`` over the configs store (reference
execution.md section 3). Every other component type is refused: the engine never runs code a
CBA carries."""

from __future__ import annotations

import difflib
import json
from typing import Any

from ...store.errors import WriteConflict
from ...web.errors import ApiError
from ..config_snapshots import ConfigSnapshots
from ..repository.resolution_keys import ResolutionKey
from .engine import StepContext, StepFailed
from .results import ResolutionResults

RESOLUTION = "component-resource-resolution"
DELETION = "component-resource-deletion"
SNAPSHOTS = "component-config-snapshots-executor"


def unsupported(component_type: str) -> str:
    return f"component type {component_type} is not supported"


def _prefixes(inputs: dict[str, Any]) -> list[str]:
    prefixes = inputs.get("artifact-prefix-names")
    if isinstance(prefixes, str):
        try:
            prefixes = json.loads(prefixes)
        except ValueError:
            prefixes = [prefixes]
    if not isinstance(prefixes, list) or not prefixes or not all(isinstance(p, str) and p for p in prefixes):
        raise StepFailed("artifact-prefix-names must be a non-empty list of names")
    return prefixes


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


class ResourceDeletion:
    def __init__(self, results: ResolutionResults) -> None:
        self.results = results

    def __call__(self, context: StepContext) -> dict[str, Any]:
        inputs = context.inputs
        prefixes = _prefixes(inputs)
        key, rid, rtype = (
            _text(inputs.get(name)) for name in ("resolution-key", "resource-id", "resource-type")
        )
        if bool(key) == bool(rid and rtype):
            raise StepFailed("give either resolution-key or both resource-id and resource-type")
        last_n = inputs.get("last-n-occurrences")
        if last_n is not None and (not isinstance(last_n, int) or isinstance(last_n, bool) or last_n < 1):
            raise StepFailed(f"last-n-occurrences ({last_n}) must be a positive integer")
        context.check_deadline()
        result: dict[str, Any] = {}
        total = 0
        for prefix in prefixes:
            stored = ResolutionKey(
                context.blueprint.name,
                context.blueprint.version,
                prefix,
                resolution_key=key,
                resource_type="" if key else rtype,
                resource_id="" if key else rid,
            )
            deleted = self.results.delete(stored, last_n)
            result[prefix] = {"nDeletedTemplates": deleted.templates, "nDeletedResources": deleted.resources}
            total += deleted.templates + deleted.resources
        if total == 0 and inputs.get("fail-on-empty") in (True, "true"):
            raise StepFailed(
                "No templates or resources were deleted", attributes={"result": result, "success": False}
            )
        return {"result": result, "success": True}


class ConfigSnapshotsExecutor:
    def __init__(self, snapshots: ConfigSnapshots) -> None:
        self.snapshots = snapshots

    def __call__(self, context: StepContext) -> dict[str, Any]:
        inputs = context.inputs
        operation = _text(inputs.get("operation")).lower()
        rid, rtype = _text(inputs.get("resource-id")), _text(inputs.get("resource-type"))
        if not rid or not rtype:
            raise self._failed("resource-id and resource-type are required")
        try:
            if operation == "fetch":
                status = _text(inputs.get("resource-status")) or "RUNNING"
                value = self.snapshots.in_format(rtype, rid, status, "text/plain").text
                return self._done(f"fetched {rtype}/{rid} ({status.upper()})", value)
            if operation == "store":
                status = _text(inputs.get("resource-status")) or "RUNNING"
                snapshot = inputs.get("resource-snapshot")
                text = snapshot if isinstance(snapshot, str) else json.dumps(snapshot)
                context.check_deadline()
                self.snapshots.save(rtype, rid, status, text)
                return self._done(f"stored {rtype}/{rid} ({status.upper()})", None)
            if operation == "diff":
                return self._diff(rtype, rid, _text(inputs.get("diff-content-type")).lower() or "json")
        except (ApiError, WriteConflict) as error:
            raise self._failed(error.message) from None
        raise self._failed(f"operation ({operation}) must be fetch, store or diff")

    def _diff(self, rtype: str, rid: str, content_type: str) -> dict[str, Any]:
        running = self.snapshots.in_format(rtype, rid, "RUNNING", "text/plain").text
        candidate = self.snapshots.in_format(rtype, rid, "CANDIDATE", "text/plain").text
        if content_type == "json":
            try:
                patch = json_diff(json.loads(running), json.loads(candidate))
            except ValueError:
                raise self._failed("a snapshot is not JSON") from None
            return self._done("diff of RUNNING and CANDIDATE (JSON Patch)", json.dumps(patch))
        if content_type == "xml":
            lines = difflib.unified_diff(
                running.splitlines(), candidate.splitlines(), "RUNNING", "CANDIDATE", lineterm=""
            )
            return self._done("diff of RUNNING and CANDIDATE (unified text diff)", "\n".join(lines))
        raise self._failed(f"diff-content-type ({content_type}) must be json or xml")

    @staticmethod
    def _done(message: str, value: str | None) -> dict[str, Any]:
        return {
            "config-snapshot-status": "success",
            "config-snapshot-message": message,
            "config-snapshot-value": value,
        }

    @staticmethod
    def _failed(message: str) -> StepFailed:
        attributes = {"config-snapshot-status": "failure", "config-snapshot-message": message}
        return StepFailed(message, attributes=attributes)


def json_diff(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """An RFC 6902 patch turning ``old`` into ``new`` (objects member by member, the rest replaced)."""
    if isinstance(old, dict) and isinstance(new, dict):
        patch: list[dict[str, Any]] = []
        for key in sorted(old.keys() | new.keys()):
            where = f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if key not in new:
                patch.append({"op": "remove", "path": where})
            elif key not in old:
                patch.append({"op": "add", "path": where, "value": new[key]})
            else:
                patch.extend(json_diff(old[key], new[key], where))
        return patch
    return [] if old == new else [{"op": "replace", "path": path, "value": new}]
