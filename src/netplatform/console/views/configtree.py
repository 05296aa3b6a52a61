"""Config tree: browse the modelled tree and create or edit a node in a form from the YANG model.

Console URLs mirror the service's (``/config/GENERIC-RESOURCE-API:brg-allotted-resources/...``),
so every node has a deep link. What a node is, its leaves and children come from the service's
/openapi.json (:mod:`..configmodel`), fetched once per process and service URL.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from ..apis import ApiError, refusal_status
from ..configmodel import PREFIX, ConfigModel, Leaf, NodeDef, leaf_value
from ..sessions import Session
from ..web import apis, checked_form, config_models, current_session, render

router = APIRouter()
JSON_TYPE = {"Content-Type": "application/json", "Accept": "application/json"}


@dataclass(frozen=True)
class RestconfError:
    """A RESTCONF refusal: the message, and the leaf it names (from error-path) when it names one."""

    status: int
    tag: str
    message: str
    leaf: str


def restconf_errors(status: int, body: Any) -> list[RestconfError]:
    listed = ((body or {}).get("errors") or {}).get("error") if isinstance(body, dict) else None
    found = []
    for item in listed or []:
        last = str(item.get("error-path") or "").rsplit("/", 1)[-1].split("=")[0]
        message = str(item.get("error-info") or item.get("error-message") or "")
        found.append(RestconfError(status, str(item.get("error-tag", "")), message, last.rpartition(":")[2]))
    return found


async def model(request: Request, session: Session) -> ConfigModel | ApiError:
    cache = config_models(request)
    url = apis(request).urls["configtree"]
    if url not in cache:
        response = await apis(request).call("configtree", "GET", "/openapi.json", session.credentials)
        if response.status_code != 200:
            return ApiError.of(response)
        cache[url] = ConfigModel(response.json())
    return cache[url]


def raw_segments(request: Request) -> list[str]:
    """The path's segments still percent-encoded: a key may hold a slash (``%2F``)."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    path = raw.decode("latin-1").split("?")[0]
    return [segment for segment in path[len(PREFIX) :].split("/") if segment]


def page_url(segments: list[str]) -> str:
    return PREFIX + "".join(segment + "/" for segment in segments)


def crumbs(found: ConfigModel, segments: list[str]) -> list[tuple[str, str]]:
    """Each ancestor; a list (no page of its own) links to its place on its parent's page."""
    trail = []
    for i, seg in enumerate(segments):
        node = found.match(segments[: i + 1])
        url = page_url(segments[: i + 1])
        if node is not None and node.kind == "list":
            url = page_url(segments[:i]) + f"#list-{node.name}"
        trail.append((unquote(seg.partition(":")[2] or seg), url))
    return trail


async def _read(request: Request, session: Session, segments: list[str]) -> tuple[int, Any]:
    response = await apis(request).call(
        "configtree", "GET", page_url(segments) + "?depth=3", session.credentials, headers=JSON_TYPE
    )
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, None


def node_value(node: NodeDef, body: Any) -> dict[str, Any]:
    """The node's own object out of a GET answer (a list entry comes as a one-element array)."""
    value: Any = next(iter(body.values()), {}) if isinstance(body, dict) else {}
    if isinstance(value, list):
        value = value[0] if value else {}
    return value if isinstance(value, dict) else {}


@router.get("/config")
async def config_root(request: Request, session: Session = Depends(current_session)) -> Response:
    found = await model(request, session)
    if isinstance(found, ApiError):
        return render(
            request, "api_error.html", {"title": "Config tree", "error": found}, refusal_status(found.status)
        )
    roots = found.roots()
    return RedirectResponse(page_url([roots[0].qualified]) if roots else "/", status_code=303)


@router.get("/config/{rest:path}")
async def config_node(
    request: Request, rest: str, form: str = "", child: str = "", session: Session = Depends(current_session)
) -> Response:
    found = await model(request, session)
    if isinstance(found, ApiError):
        return render(
            request, "api_error.html", {"title": "Config tree", "error": found}, refusal_status(found.status)
        )
    segments = raw_segments(request)
    node = found.match(segments)
    if node is None or node.kind == "list":
        return _not_in_model(request, segments)
    status, body = await _read(request, session, segments)
    if status not in (200, 404):
        errors = restconf_errors(status, body)
        error = ApiError(status, errors[0].message if errors else str(body), [])
        return render(request, "api_error.html", {"title": node.name, "error": error}, refusal_status(status))
    value = node_value(node, body) if status == 200 else None
    if form:
        return _form_page(request, found, node, segments, form, child, value, {})
    return render(request, "configtree/node.html", _node_context(request, found, node, segments, value))


def _not_in_model(request: Request, segments: list[str]) -> Response:
    error = ApiError(404, f"{'/'.join(unquote(s) for s in segments)} names no node of the model.", [])
    return render(request, "api_error.html", {"title": "Config tree", "error": error}, 404)


def _node_context(
    request: Request, found: ConfigModel, node: NodeDef, segments: list[str], value: dict[str, Any] | None
) -> dict[str, Any]:
    present = value or {}
    children = []
    for child in found.children(node):
        data = present.get(child.name)
        if child.kind == "list":
            entry = found.entry_of(child)
            keys = entry.keys if entry else []
            rows = [
                (
                    [str(item.get(key, "")) for key in keys],
                    page_url(
                        [*segments, child.qualified, *(quote(str(item.get(k, "")), safe="") for k in keys)]
                    ),
                )
                for item in (data or [])
            ]
            children.append({"def": child, "key_names": keys, "rows": rows, "exists": bool(rows)})
        else:
            children.append(
                {"def": child, "exists": data is not None, "url": page_url([*segments, child.qualified])}
            )
    return {
        "title": node.name,
        "node": node,
        "crumbs": crumbs(found, segments),
        "exists": value is not None,
        "leaves": [(leaf, present.get(leaf.name)) for leaf in found.leaves(node)],
        "children": children,
        "here": page_url(segments),
        "raw": json.dumps(value, indent=2) if value is not None else "",
        "notice": {"created": "Created.", "saved": "Saved."}.get(request.query_params.get("done", ""), ""),
    }


@dataclass
class FormTarget:
    """What a form writes: the node edited, or the child container or list entry created."""

    mode: str  # edit or new
    node: NodeDef  # the node whose leaves the form holds
    child: str  # the child's URI segment when creating


def _target(found: ConfigModel, node: NodeDef, form: str, child: str) -> FormTarget | None:
    if form == "edit":
        return FormTarget("edit", node, "")
    for candidate in found.children(node):
        if candidate.qualified == child:
            target = found.entry_of(candidate) if candidate.kind == "list" else candidate
            return FormTarget("new", target, child) if target else None
    return None


def _form_page(
    request: Request,
    found: ConfigModel,
    node: NodeDef,
    segments: list[str],
    form: str,
    child: str,
    value: dict[str, Any] | None,
    values: dict[str, str],
    errors: list[RestconfError] | None = None,
    status: int = 200,
) -> Response:
    target = _target(found, node, form, child)
    if target is None or (target.mode == "edit" and value is None):
        return _not_in_model(request, [*segments, child])
    leaves = found.leaves(target.node)
    if target.mode == "edit" and not values:
        values = {leaf.name: _text(value.get(leaf.name)) for leaf in leaves if value and leaf.name in value}
    by_field = {e.leaf: e.message for e in errors or [] if e.leaf in {leaf.name for leaf in leaves}}
    context = {
        "title": ("Edit " if target.mode == "edit" else "New ") + target.node.name,
        "target": target,
        "crumbs": crumbs(found, segments),
        "leaves": leaves,
        "values": values,
        "field_errors": by_field,
        "errors": [e for e in errors or [] if e.message not in by_field.values()],
        "action": page_url(segments) + f"?form={quote(form)}" + (f"&child={quote(child)}" if child else ""),
        "cancel": page_url(segments),
    }
    return render(request, "configtree/form.html", context, status)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


@router.post("/config/{rest:path}")
async def config_write(
    request: Request, rest: str, form: str = "", child: str = "", session: Session = Depends(current_session)
) -> Response:
    posted = await checked_form(request, session)
    found = await model(request, session)
    if isinstance(found, ApiError):
        return render(
            request, "api_error.html", {"title": "Config tree", "error": found}, refusal_status(found.status)
        )
    segments = raw_segments(request)
    node = found.match(segments)
    target = _target(found, node, form, child) if node else None
    if node is None or target is None:
        return _not_in_model(request, segments)
    values = {leaf.name: str(posted.get(leaf.name) or "") for leaf in found.leaves(target.node)}
    status, body = await _read(request, session, segments)
    value = node_value(node, body) if status == 200 else None
    missing = [
        RestconfError(400, "missing-element", "A value is required.", leaf.name)
        for leaf in found.leaves(target.node)
        if leaf.required and not values[leaf.name].strip()
    ]
    if missing:
        return _form_page(request, found, node, segments, form, child, value, values, missing, 400)
    leaves = {leaf.name: leaf for leaf in found.leaves(target.node)}
    written = {name: leaf_value(leaves[name], text) for name, text in values.items() if text != ""}
    method, path, payload, goes_to = _request(target, node, segments, written, value or {}, leaves)
    response = await apis(request).call(
        "configtree", method, path, session.credentials, content=json.dumps(payload), headers=JSON_TYPE
    )
    if response.status_code in (200, 201, 204):
        done = "created" if target.mode == "new" else "saved"
        return RedirectResponse(goes_to + f"?done={done}", status_code=303)
    try:
        answer = response.json()
    except ValueError:
        answer = None
    errors = restconf_errors(response.status_code, answer) or [
        RestconfError(response.status_code, "", response.text[:500], "")
    ]
    code = refusal_status(response.status_code)  # a 403 (no config write) stays a 403
    return _form_page(request, found, node, segments, form, child, value, values, errors, code)


def _request(
    target: FormTarget,
    node: NodeDef,
    segments: list[str],
    written: dict[str, Any],
    current: dict[str, Any],
    leaves: dict[str, Leaf],
) -> tuple[str, str, dict[str, Any], str]:
    """Method, API path, body and the console page to go to afterwards.

    An edit PUTs the node with the leaves of the form and every child member as it was (PUT
    replaces the whole node: children left out would be deleted). A new list entry is POSTed to
    the key-less list, a new container to its parent.
    """
    here = page_url(segments)
    if target.mode == "edit":
        kept = {name: item for name, item in current.items() if name not in leaves}
        member: Any = {**written, **kept}
        body = {node.qualified: [member] if node.kind == "entry" else member}
        return "PUT", here, body, here
    if target.node.kind == "entry":
        keys = [quote(str(written.get(key, "")), safe="") for key in target.node.keys]
        return (
            "POST",
            here + target.child + "/",
            {target.node.name: [written]},
            page_url([*segments, target.child, *keys]),
        )
    return "POST", here, {target.node.name: written}, page_url([*segments, target.child])
