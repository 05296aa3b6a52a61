"""Executions (issue 25 §4): the catalog's latest runs with their status and error, a form to run
a stored blueprint's workflow with JSON inputs, and a run's page with the templates it stored.

Everything comes from the catalog's public API: ``GET /api/v1/workflow/audit`` (the latest
records), ``/audit-status/{requestId}/{subRequestId}`` (one run), ``POST
/api/v1/execution-service/process`` (a run), ``GET /api/v1/resources`` and ``/api/v1/template``
(what a run stored under its resolution key or resource).
"""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from ..apis import ApiError, refusal_status
from ..sessions import Session
from ..web import apis, checked_form, current_session, field, grants, render
from .blueprints import API as MODELS
from .blueprints import api_error, seg

router = APIRouter()
PAGE_SIZE = 20
# Published models offered by the run form's chooser (the catalog's listing, sorted by name).
CHOOSER_SIZE = 100
# Stored templates a run's page reads at most (one per artifact and occurrence).
TEMPLATES_SHOWN = 10
MODES = ("sync", "async")
PROCESS = "/api/v1/execution-service/process"
AUDIT = "/api/v1/workflow/audit"
DEPLOYS = "/api/v1/deploys"  # what the run's config-deploy steps did on each device


async def _get(request: Request, session: Session, path: str, **params: Any) -> Any:
    return await apis(request).call("blueprints", "GET", path, session.credentials, params=params)


def run_page(request_id: str, sub_request_id: str) -> str:
    return f"/executions/{seg(request_id)}/{seg(sub_request_id)}"


def model_value(name: str, version: str) -> str:
    """A model as one form value (names and versions may hold any character but NUL)."""
    return json.dumps([name, version])


def parse_model(value: str) -> tuple[str, str] | None:
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    if isinstance(parsed, list) and len(parsed) == 2 and all(isinstance(p, str) and p for p in parsed):
        return parsed[0], parsed[1]
    return None


@router.get("/executions")
async def executions(
    request: Request, page: int = 0, session: Session = Depends(current_session)
) -> Response:
    page = max(page, 0)
    context: dict[str, Any] = {"title": "Executions", "page": page, "models": []}
    # One record more than a page says whether there is a next page.
    answer = await _get(request, session, AUDIT, limit=PAGE_SIZE + 1, offset=page * PAGE_SIZE)
    if answer.status_code != 200:
        error = api_error(answer)
        return render(
            request, "executions/list.html", {**context, "error": error}, refusal_status(error.status)
        )
    records = answer.json()
    context.update(runs=[Run.of(r) for r in records[:PAGE_SIZE]], more=len(records) > PAGE_SIZE)
    if grants(request).may_execute():
        listing = await _get(
            request, session, MODELS + "/paged", limit=CHOOSER_SIZE, offset=0, sort="NAME", published="true"
        )
        if listing.status_code == 200:
            content = listing.json().get("content") or []
            context["models"] = [(m["artifactName"], m["artifactVersion"]) for m in content]
        else:
            context["models_error"] = api_error(listing)
    return render(request, "executions/list.html", {**context, "model_value": model_value})


@dataclass(frozen=True)
class Run:
    """An audit record as the pages show it: the contents parsed (they are JSON text)."""

    record: dict[str, Any]
    task: Any
    response: Any

    @classmethod
    def of(cls, record: dict[str, Any]) -> Run:
        return cls(
            record, _json(record.get("workflowTaskContent")), _json(record.get("workflowResponseContent"))
        )

    @property
    def link(self) -> str:
        return run_page(str(self.record.get("requestId")), str(self.record.get("subRequestId")))

    def pretty(self, value: Any) -> str:
        return json.dumps(value, indent=2, sort_keys=True) if value is not None else ""


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


@dataclass
class RunForm:
    """The run page's state: the model, its workflows, the one chosen, and what was typed."""

    name: str
    version: str
    workflows: list[str]
    workflow: str
    inputs: str
    mode: str = "sync"
    published: bool = True


async def _run_form(
    request: Request, session: Session, name: str, version: str, workflow: str
) -> RunForm | ApiError:
    meta = await _get(request, session, f"{MODELS}/by-name/{seg(name)}/version/{seg(version)}")
    if meta.status_code != 200:
        return api_error(meta)
    listing = await _get(
        request, session, f"{MODELS}/workflows/blueprint-name/{seg(name)}/version/{seg(version)}"
    )
    if listing.status_code != 200:
        return api_error(listing)
    names = [str(w) for w in listing.json().get("workflows") or []]
    chosen = workflow if workflow in names else (names[0] if names else "")
    published = (meta.json().get("blueprintModel") or {}).get("published") == "Y"
    inputs = await _skeleton(request, session, name, version, chosen) if chosen else "{}"
    return RunForm(name, version, names, chosen, inputs, published=published)


async def _skeleton(request: Request, session: Session, name: str, version: str, workflow: str) -> str:
    """The workflow's declared inputs as a JSON object to fill in (the properties of an input's
    data type as a nested object); ``{}`` when the catalog cannot say."""
    body = {"blueprintName": name, "version": version, "workflowName": workflow}
    spec = await apis(request).call(
        "blueprints", "POST", MODELS + "/workflow-spec", session.credentials, json=body
    )
    if spec.status_code != 200:
        return "{}"
    found = spec.json()
    types = _member(found, "dataTypes")
    skeleton: dict[str, Any] = {}
    for input_name, definition in _member(_member(found, "workFlowData"), "inputs").items():
        properties = _member(_member(types, _member_text(definition, "type")), "properties")
        skeleton[input_name] = {p: "" for p in properties} if properties else ""
    return json.dumps(skeleton, indent=2)


def _member(value: Any, name: str) -> dict[str, Any]:
    """``value[name]`` when both are JSON objects, else an empty one."""
    found = value.get(name) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def _member_text(value: Any, name: str) -> str:
    found = value.get(name) if isinstance(value, dict) else None
    return found if isinstance(found, str) else ""


@router.get("/executions/run")
async def run_form(
    request: Request, model: str = "", workflow: str = "", session: Session = Depends(current_session)
) -> Response:
    chosen = parse_model(model)
    if chosen is None:
        error = ApiError(400, "Choose a blueprint to run.", [])
        return render(request, "api_error.html", {"title": "Run a workflow", "error": error}, 400)
    form = await _run_form(request, session, *chosen, workflow)
    if isinstance(form, ApiError):
        return render(
            request, "api_error.html", {"title": "Run a workflow", "error": form}, refusal_status(form.status)
        )
    return _render_form(request, form)


def _render_form(
    request: Request, form: RunForm, error: ApiError | None = None, status: int = 200
) -> Response:
    context = {
        "title": f"Run {form.name} {form.version}",
        "form": form,
        "model": model_value(form.name, form.version),
        "modes": MODES,
        "error": error,
    }
    return render(request, "executions/run.html", context, status)


@router.post("/executions/run")
async def run(request: Request, session: Session = Depends(current_session)) -> Response:
    form_data = await checked_form(request, session)
    chosen = parse_model(field(form_data, "model"))
    workflow, typed, mode = field(form_data, "workflow"), field(form_data, "inputs"), field(form_data, "mode")
    if chosen is None or not workflow:
        error = ApiError(400, "Choose a blueprint and one of its workflows.", [])
        return render(request, "api_error.html", {"title": "Run a workflow", "error": error}, 400)
    form = RunForm(chosen[0], chosen[1], [workflow], workflow, typed, mode if mode in MODES else "sync")
    try:
        inputs = json.loads(typed or "{}")
    except ValueError as bad:
        return _render_form(request, form, ApiError(400, f"The inputs are not JSON: {bad}", []), 400)
    if not isinstance(inputs, dict):
        return _render_form(request, form, ApiError(400, "The inputs must be a JSON object.", []), 400)
    body = execution_input(session.user, form, inputs)
    answer = await apis(request).call("blueprints", "POST", PROCESS, session.credentials, json=body)
    refused = _refusal(answer)
    if refused is not None:
        return _render_form(request, form, refused, refusal_status(refused.status))
    header = body["commonHeader"]
    return RedirectResponse(run_page(header["requestId"], header["subRequestId"]), status_code=303)


def execution_input(user: str, form: RunForm, inputs: dict[str, Any]) -> dict[str, Any]:
    """The ExecutionServiceInput of a run the console starts: new request ids, the console and
    the user as the originator."""
    return {
        "commonHeader": {
            "originatorId": f"console:{user}",
            "requestId": str(uuid.uuid4()),
            "subRequestId": str(uuid.uuid4()),
        },
        "actionIdentifiers": {
            "blueprintName": form.name,
            "blueprintVersion": form.version,
            "actionName": form.workflow,
            "mode": form.mode,
        },
        "payload": {f"{form.workflow}-request": inputs},
    }


def _refusal(answer: Any) -> ApiError | None:
    """None when the catalog ran (or failed) the workflow, which its audit then records: a 200,
    a 500 and a 404 (an unknown workflow, recorded Failed) answer an ExecutionServiceOutput.
    Otherwise what refused the request: the output's errorMessage (400), or the catalog's error
    body (401, 403)."""
    try:
        body = answer.json()
    except ValueError:
        return ApiError.of(answer)
    status = body.get("status") if isinstance(body, dict) else None
    if isinstance(status, dict) and "eventType" in status:
        if answer.status_code in (200, 404, 500):
            return None
        return ApiError(answer.status_code, str(status.get("errorMessage") or status.get("message")), [])
    return api_error(answer)


@dataclass(frozen=True)
class StoredTemplate:
    artifact: str
    occurrence: int
    text: str | None
    error: ApiError | None = None


@router.get("/executions/{request_id}/{sub_request_id}")
async def run_detail(
    request: Request, request_id: str, sub_request_id: str, session: Session = Depends(current_session)
) -> Response:
    answer = await _get(
        request, session, f"/api/v1/workflow/audit-status/{seg(request_id)}/{seg(sub_request_id)}"
    )
    title = f"Run {request_id}"
    if answer.status_code != 200:
        error = api_error(answer)
        return render(
            request, "api_error.html", {"title": title, "error": error}, refusal_status(error.status)
        )
    runs = [Run.of(record) for record in answer.json()]
    if not runs:
        error = ApiError(404, f"No execution is recorded for {request_id} / {sub_request_id}.", [])
        return render(request, "api_error.html", {"title": title, "error": error}, 404)
    latest = runs[-1]
    key = stored_under(latest)
    templates: list[StoredTemplate] = []
    templates_error: ApiError | None = None
    if key:
        found = await _stored_templates(request, session, latest, key)
        if isinstance(found, ApiError):
            templates_error = found
        else:
            templates = found
    deploys = await _get(request, session, DEPLOYS, requestId=request_id, subRequestId=sub_request_id)
    context = {
        "title": title,
        "deploys": deploys.json() if deploys.status_code == 200 else [],
        "deploys_error": None if deploys.status_code == 200 else api_error(deploys),
        "runs": runs,
        "key": key,
        "templates": templates,
        "templates_error": templates_error,
        "request_id": request_id,
    }
    return render(request, "executions/detail.html", context)


def stored_under(run: Run) -> dict[str, str]:
    """Where a run's resolution stores its results, as the request named it: ``resolution-key``,
    or ``resource-type`` and ``resource-id``, in the request block or its ``-properties``."""
    workflow = str(run.record.get("workflowName"))
    block = run.task.get(f"{workflow}-request") if isinstance(run.task, dict) else None
    if not isinstance(block, dict):
        return {}
    properties = block.get(f"{workflow}-properties")
    places = [block, properties] if isinstance(properties, dict) else [block]
    for place in places:
        key = place.get("resolution-key")
        if isinstance(key, str) and key:
            return {"resolutionKey": key}
        kind, ident = place.get("resource-type"), place.get("resource-id")
        if isinstance(kind, str) and isinstance(ident, str) and kind and ident:
            return {"resourceType": kind, "resourceId": ident}
    return {}


async def _stored_templates(
    request: Request, session: Session, run: Run, key: dict[str, str]
) -> list[StoredTemplate] | ApiError:
    """The templates stored under the run's key: one per resolution artifact of the CBA (its
    ``<prefix>-mapping`` artifacts) and occurrence, each read as text; a prefix with nothing
    stored is left out. (The catalog lists values by key only with their artifact name.)"""
    name, version = str(run.record.get("blueprintName")), str(run.record.get("blueprintVersion"))
    archive = await _get(request, session, f"{MODELS}/download/by-name/{seg(name)}/version/{seg(version)}")
    if archive.status_code != 200:
        return api_error(archive)
    found: list[StoredTemplate] = []
    for prefix in mapping_prefixes(archive.content):
        for occurrence in range(1, TEMPLATES_SHOWN + 1):
            if len(found) >= TEMPLATES_SHOWN:
                return found
            params = {"bpName": name, "bpVersion": version, "artifactName": prefix, **key}
            answer = await _get(request, session, "/api/v1/template", **params, occurrence=occurrence)
            if answer.status_code == 404:
                break
            if answer.status_code != 200:
                found.append(StoredTemplate(prefix, occurrence, None, api_error(answer)))
                break
            found.append(StoredTemplate(prefix, occurrence, answer.text))
    return found


def mapping_prefixes(data: bytes) -> list[str]:
    """The resolution prefixes of a CBA: ``<prefix>-mapping`` artifacts of the node templates of
    its entry definitions (TOSCA.meta ``Entry-Definitions``); none when the archive does not say."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            meta = archive.read("TOSCA-Metadata/TOSCA.meta").decode("utf-8", "replace")
            entry = _meta_value(meta, "Entry-Definitions")
            definitions = json.loads(archive.read(entry)) if entry else {}
    except (zipfile.BadZipFile, KeyError, ValueError):
        return []
    nodes = _member(definitions, "topology_template").get("node_templates")
    prefixes: set[str] = set()
    for node in nodes.values() if isinstance(nodes, dict) else []:
        for artifact in _member(node, "artifacts"):
            if artifact.endswith("-mapping"):
                prefixes.add(artifact.removesuffix("-mapping"))
    return sorted(prefixes)


def _meta_value(meta: str, key: str) -> str:
    """A key's value in TOSCA.meta (``Key: value`` lines); empty when absent."""
    for line in meta.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == key:
            return value.strip()
    return ""
