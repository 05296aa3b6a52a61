"""Devices (issue 39): the inventory config deploy reaches. A list with a form to add a device,
and a device's page: its settings, a check (capabilities, or why it cannot be reached), the
trust of a new host key (administrators), and its latest deploys with their diffs.

Everything comes from the catalog's public API (``/api/v1/devices``); the console never sees a
device's password or private key again once it has sent it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from ...access.permissions import ServicePermissions
from ..apis import ApiError, refusal_status
from ..sessions import Session
from ..web import apis, checked_form, current_session, field, grants, render
from .blueprints import api_error, seg

router = APIRouter()
API = "/api/v1/devices"
DEPLOYS_SHOWN = 10
TRUST = ServicePermissions("blueprints").admin("devices")
TEXT_FIELDS = ("name", "host", "username", "site")
SECRET_FIELDS = ("password", "privateKey", "hostKey")


def device_page(name: str) -> str:
    return f"/devices/{seg(name)}"


async def _call(request: Request, session: Session, method: str, path: str, **kwargs: Any) -> Any:
    return await apis(request).call("blueprints", method, path, session.credentials, **kwargs)


async def _list(
    request: Request, session: Session, form: dict[str, str], error: ApiError | None = None, status: int = 200
) -> Response:
    context: dict[str, Any] = {"title": "Devices", "form": form, "error": error, "devices": []}
    answer = await _call(request, session, "GET", API)
    if answer.status_code != 200:
        failed = api_error(answer)
        return render(
            request, "devices/list.html", {**context, "list_error": failed}, refusal_status(failed.status)
        )
    context["devices"] = answer.json()
    return render(request, "devices/list.html", context, status)


@router.get("/devices")
async def devices(request: Request, session: Session = Depends(current_session)) -> Response:
    return await _list(request, session, {"port": "830", "connectTimeout": "30", "replyTimeout": "30"})


def device_body(form: dict[str, str]) -> dict[str, Any] | ApiError:
    """The API body of the add form: blank optional fields left out, numbers read."""
    body: dict[str, Any] = {key: form[key].strip() for key in TEXT_FIELDS if form.get(key, "").strip()}
    body.update({key: form[key] for key in SECRET_FIELDS if form.get(key, "").strip()})
    for key in ("port", "connectTimeout", "replyTimeout"):
        text = form.get(key, "").strip()
        if text:
            try:
                body[key] = int(text) if key == "port" else float(text)
            except ValueError:
                return ApiError(400, f"{key} must be a number.", [])
    return body


@router.post("/devices")
async def add_device(request: Request, session: Session = Depends(current_session)) -> Response:
    data = await checked_form(request, session)
    names = (*TEXT_FIELDS, *SECRET_FIELDS, "port", "connectTimeout", "replyTimeout")
    form = {name: field(data, name) for name in names}
    body = device_body(form)
    kept = {k: v for k, v in form.items() if k not in ("password", "privateKey")}  # never sent back
    if isinstance(body, ApiError):
        return await _list(request, session, kept, body, 400)
    answer = await _call(request, session, "POST", API, json=body)
    if answer.status_code != 201:
        failed = api_error(answer)
        return await _list(request, session, kept, failed, refusal_status(failed.status))
    return RedirectResponse(device_page(str(body.get("name", ""))) + "?added=1", status_code=303)


async def _device(
    request: Request, session: Session, name: str, extra: dict[str, Any], status: int = 200
) -> Response:
    answer = await _call(request, session, "GET", f"{API}/{seg(name)}")
    title = f"Device {name}"
    if answer.status_code != 200:
        error = api_error(answer)
        return render(
            request, "api_error.html", {"title": title, "error": error}, refusal_status(error.status)
        )
    deploys = await _call(
        request, session, "GET", f"{API}/{seg(name)}/deploys", params={"limit": DEPLOYS_SHOWN}
    )
    context = {
        "title": title,
        "device": answer.json(),
        "deploys": deploys.json() if deploys.status_code == 200 else [],
        "deploys_error": None if deploys.status_code == 200 else api_error(deploys),
        "may_trust": grants(request).allows(TRUST),
        "trust_permission": str(TRUST),
        "added": request.query_params.get("added") == "1",
        "trusted": request.query_params.get("trusted") == "1",
        **extra,
    }
    return render(request, "devices/device.html", context, status)


@router.get("/devices/{name}")
async def device(request: Request, name: str, session: Session = Depends(current_session)) -> Response:
    return await _device(request, session, name, {})


@router.post("/devices/{name}/check")
async def check(request: Request, name: str, session: Session = Depends(current_session)) -> Response:
    await checked_form(request, session)
    answer = await _call(request, session, "POST", f"{API}/{seg(name)}/check", timeout=120)
    if answer.status_code != 200:
        failed = api_error(answer)
        return await _device(request, session, name, {"error": failed}, refusal_status(failed.status))
    return await _device(request, session, name, {"check": answer.json()})


@router.post("/devices/{name}/trust")
async def trust(request: Request, name: str, session: Session = Depends(current_session)) -> Response:
    data = await checked_form(request, session)
    body = {"fingerprint": field(data, "fingerprint")}
    answer = await _call(
        request, session, "POST", f"{API}/{seg(name)}/trust-host-key", json=body, timeout=120
    )
    if answer.status_code != 200:
        failed = api_error(answer)
        return await _device(request, session, name, {"error": failed}, refusal_status(failed.status))
    return RedirectResponse(device_page(name) + "?trusted=1", status_code=303)
