"""Blueprints (spec 4.1): the paged catalog, a model's page (metadata, workflows and their inputs,
the files inside its archive), download, and upload with save / enrich / publish."""

from __future__ import annotations

import asyncio
import io
import zipfile
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import UploadFile

from ..apis import ApiError, refusal_status
from ..sessions import Session
from ..web import apis, checked_form, current_session, field, render

router = APIRouter()
API = "/api/v1/blueprint-model"
PAGE_SIZE = 20
# Upload actions: the API path, and what a person reads on the button (docs/blueprints.md).
ACTIONS = {
    "save": ("", "Save (no validation)"),
    "publish": ("/publish", "Validate and publish"),
    "enrichandpublish": ("/enrichandpublish", "Enrich, validate and publish"),
    "enrich": ("/enrich", "Enrich only (download the enriched archive)"),
}
TEXT_LIMIT = 512 * 1024  # a file larger than this is offered for download, not shown


def seg(value: str) -> str:
    return quote(value, safe="")


def model_page(name: str, version: str) -> str:
    return f"/blueprints/{seg(name)}/{seg(version)}"


def api_error(response: Any) -> ApiError:
    """The catalog's error payload: its message split into lines, and each sub-error's cause."""
    try:
        body = response.json()
    except ValueError:
        return ApiError.of(response)
    if not isinstance(body, dict) or "message" not in body:
        return ApiError.of(response)
    lines = [line.strip() for line in str(body["message"]).split("\n") if line.strip()]
    subs = [f"{s.get('message', '')} {s.get('cause', '')}".strip() for s in body.get("subErrors") or []]
    head = f"{body.get('status', '')}: {lines[0]}" if lines else str(body.get("status", ""))
    return ApiError(response.status_code, head, lines[1:] + subs)


async def _call(request: Request, session: Session, method: str, path: str, **kwargs: Any) -> Any:
    return await apis(request).call("blueprints", method, API + path, session.credentials, **kwargs)


@router.get("/blueprints")
async def catalog(
    request: Request,
    q: str = "",
    page: int = 0,
    published: str = "",
    session: Session = Depends(current_session),
) -> Response:
    q, page = q.strip(), max(page, 0)
    params: dict[str, Any] = {"limit": PAGE_SIZE, "offset": page, "sort": "NAME"}
    if published in ("true", "false"):
        params["published"] = published
    path = f"/paged/meta-data/{seg(q)}" if q else "/paged"
    response = await _call(request, session, "GET", path, params=params)
    context: dict[str, Any] = {"title": "Blueprints", "q": q, "published": published, "page": page}
    if response.status_code != 200:
        return render(
            request,
            "blueprints/catalog.html",
            {**context, "error": api_error(response)},
            refusal_status(response.status_code),
        )
    body = response.json()
    context.update(models=body.get("content") or [], total=body.get("totalElements", 0))
    context.update(
        pages=body.get("totalPages", 0), first=body.get("first", True), last=body.get("last", True)
    )
    return render(request, "blueprints/catalog.html", context)


@dataclass
class Workflow:
    name: str
    inputs: dict[str, Any]
    data_types: dict[str, Any]
    error: ApiError | None = None


async def _workflow(request: Request, session: Session, name: str, version: str, flow: str) -> Workflow:
    body = {"blueprintName": name, "version": version, "workflowName": flow}
    response = await _call(request, session, "POST", "/workflow-spec", json=body)
    if response.status_code != 200:
        return Workflow(flow, {}, {}, api_error(response))
    spec = response.json()
    return Workflow(flow, (spec.get("workFlowData") or {}).get("inputs") or {}, spec.get("dataTypes") or {})


async def _archive(request: Request, session: Session, name: str, version: str) -> bytes | ApiError:
    response = await _call(request, session, "GET", f"/download/by-name/{seg(name)}/version/{seg(version)}")
    return response.content if response.status_code == 200 else api_error(response)


def archive_files(data: bytes) -> list[tuple[str, int]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, info.file_size) for info in archive.infolist() if not info.is_dir()]


@router.get("/blueprints/{name}/{version}")
async def model(
    request: Request, name: str, version: str, session: Session = Depends(current_session)
) -> Response:
    response = await _call(request, session, "GET", f"/by-name/{seg(name)}/version/{seg(version)}")
    if response.status_code != 200:
        error = api_error(response)
        return render(
            request, "api_error.html", {"title": name, "error": error}, refusal_status(error.status)
        )
    meta = response.json().get("blueprintModel") or {}
    listing = await _call(
        request, session, "GET", f"/workflows/blueprint-name/{seg(name)}/version/{seg(version)}"
    )
    names = listing.json().get("workflows") or [] if listing.status_code == 200 else []
    workflows = await asyncio.gather(*(_workflow(request, session, name, version, flow) for flow in names))
    data = await _archive(request, session, name, version)
    context = {
        "title": f"{name} {version}",
        "meta": meta,
        "page": model_page(name, version),
        "workflows": workflows,
        "workflows_error": None if listing.status_code == 200 else api_error(listing),
        "files": archive_files(data) if isinstance(data, bytes) else [],
        "files_error": data if isinstance(data, ApiError) else None,
        "notice": {"saved": "Saved.", "published": "Published."}.get(
            request.query_params.get("done", ""), ""
        ),
    }
    return render(request, "blueprints/model.html", context)


@router.get("/blueprints/{name}/{version}/download")
async def download(
    request: Request, name: str, version: str, session: Session = Depends(current_session)
) -> Response:
    data = await _archive(request, session, name, version)
    if isinstance(data, ApiError):
        return render(request, "api_error.html", {"title": name, "error": data}, data.status)
    filename = f"{name}_{version}.zip".replace('"', "")
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    return Response(data, media_type="application/zip", headers=headers)


@router.get("/blueprints/{name}/{version}/files/{path:path}")
async def archive_file(
    request: Request, name: str, version: str, path: str, session: Session = Depends(current_session)
) -> Response:
    data = await _archive(request, session, name, version)
    if isinstance(data, ApiError):
        return render(request, "api_error.html", {"title": name, "error": data}, data.status)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        if path not in archive.namelist():
            error = ApiError(404, f"{path} is not in the archive of {name} {version}.", [])
            return render(request, "api_error.html", {"title": path, "error": error}, 404)
        content = archive.read(path)
    try:
        text: str | None = content.decode("utf-8") if len(content) <= TEXT_LIMIT else None
    except UnicodeDecodeError:
        text = None
    context = {
        "title": path,
        "name": name,
        "version": version,
        "file": path,
        "text": text,
        "size": len(content),
    }
    return render(request, "blueprints/file.html", {**context, "page": model_page(name, version)})


@router.get("/blueprints/upload")
async def upload_form(request: Request, session: Session = Depends(current_session)) -> Response:
    return render(request, "blueprints/upload.html", {"title": "Upload a blueprint", "actions": ACTIONS})


@router.post("/blueprints/upload")
async def upload(request: Request, session: Session = Depends(current_session)) -> Response:
    form = await checked_form(request, session)
    action, archive = field(form, "action"), form.get("file")
    context: dict[str, Any] = {"title": "Upload a blueprint", "actions": ACTIONS, "action": action}
    if action not in ACTIONS or not isinstance(archive, UploadFile) or not archive.filename:
        error = ApiError(400, "Choose an archive and what to do with it.", [])
        return render(request, "blueprints/upload.html", {**context, "error": error}, 400)
    data = await archive.read()
    files = {"file": (archive.filename, data, archive.content_type or "application/zip")}
    response = await _call(request, session, "POST", ACTIONS[action][0], files=files)
    if response.status_code != 200:
        # The catalog's 503 (enrichment unavailable) is about the archive, not a failed service.
        status = 400 if response.status_code == 503 else refusal_status(response.status_code)
        return render(request, "blueprints/upload.html", {**context, "error": api_error(response)}, status)
    if action == "enrich":
        disposition = response.headers.get("Content-Disposition", 'attachment; filename="enhanced-cba.zip"')
        return Response(
            response.content, media_type="application/zip", headers={"Content-Disposition": disposition}
        )
    stored = response.json().get("blueprintModel") or {}
    done = "published" if stored.get("published") == "Y" else "saved"
    target = model_page(str(stored.get("artifactName")), str(stored.get("artifactVersion")))
    return RedirectResponse(f"{target}?done={done}", status_code=303)
