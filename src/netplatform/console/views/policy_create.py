"""Create a policy type or policies from a pasted service template (YAML or JSON).

The console does not judge the document: it is sent as pasted, with the content type it
parses as, and the policy API's answer (spec 4.4 version rules, bad references) is shown.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from ..apis import ApiError, refusal_status
from ..sessions import Session
from ..web import apis, checked_form, current_session, field, render
from .policy import API, seg, type_page

router = APIRouter()
# What can be created: its label, the API path it is posted to, and the resource of the policy
# API's write permission (the form is offered to those who hold it).
KINDS = {
    "type": ("policy type", "/policytypes", "policytypes"),
    "policy": ("policy", "/policies", "policies"),
}


def content_type(document: str) -> str:
    try:
        json.loads(document)
    except ValueError:
        return "application/yaml"
    return "application/json"


def _form(
    request: Request, kind: str, document: str, error: ApiError | None = None, status: int = 200
) -> Response:
    context = {"title": "Create", "kind": kind, "kinds": KINDS, "document": document, "error": error}
    return render(request, "policy/create.html", context, status)


@router.get("/policy/new")
async def create_form(
    request: Request, kind: str = "type", session: Session = Depends(current_session)
) -> Response:
    return _form(request, kind if kind in KINDS else "type", "")


@router.post("/policy/new")
async def create(request: Request, session: Session = Depends(current_session)) -> Response:
    form = await checked_form(request, session)
    kind, document = field(form, "kind"), field(form, "document")
    if kind not in KINDS:
        return _form(request, "type", document, ApiError(400, "Choose what to create.", []), 400)
    if not document.strip():
        return _form(request, kind, document, ApiError(400, "Paste a service template first.", []), 400)
    response = await apis(request).call(
        "policy",
        "POST",
        API + KINDS[kind][1],
        session.credentials,
        content=document.encode(),
        headers={"Content-Type": content_type(document), "Accept": "application/json"},
    )
    if response.status_code != 200:
        # A refusal keeps its status: a 403 (the user lacks the write) is shown as one.
        return _form(request, kind, document, ApiError.of(response), refusal_status(response.status_code))
    target = _created_page(kind, response.json())
    return RedirectResponse(target + "?created=1", status_code=303)


def _created_page(kind: str, body: dict[str, Any]) -> str:
    if kind == "type":
        for entry in (body.get("policy_types") or {}).values():
            return type_page(str(entry["name"]), str(entry["version"]))
        return "/policy"
    for item in (body.get("topology_template") or {}).get("policies") or []:
        for entry in item.values():
            return (
                type_page(str(entry["type"]), str(entry.get("type_version", "1.0.0")))
                + f"/policies/{seg(str(entry['name']))}/versions/{seg(str(entry['version']))}"
            )
    return "/policy"
