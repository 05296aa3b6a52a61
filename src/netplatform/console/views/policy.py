"""Policy design (spec 4.4): the type hierarchy, a type's page, its policies, and creation."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from ..apis import ApiError, refusal_status
from ..sessions import Session
from ..web import apis, current_session, render

router = APIRouter()
API = "/policy/api/v1"
VIEWS = ("table", "json", "yaml")


def seg(value: str) -> str:
    return quote(value, safe="")


def type_page(name: str, version: str) -> str:
    return f"/policy/types/{seg(name)}/versions/{seg(version)}"


@dataclass
class TypeNode:
    name: str
    version: str = ""
    description: str = ""
    known: bool = True  # False for a parent the service lists no entry for (tosca.policies.Root)
    children: list[TypeNode] = field(default_factory=list)


def type_tree(policy_types: dict[str, Any]) -> list[TypeNode]:
    """The derived_from hierarchy; parents the service does not list become unlinked roots."""
    nodes: dict[str, TypeNode] = {}
    parents: dict[str, str] = {}
    for key, entry in policy_types.items():
        name = str(entry.get("name") or key.split(":")[0])
        nodes[name] = TypeNode(name, str(entry.get("version", "")), str(entry.get("description") or ""))
        parents[name] = str(entry.get("derived_from") or "")
    roots: list[TypeNode] = []
    for name in sorted(nodes):
        parent = parents[name]
        if parent and parent not in nodes:
            nodes[parent] = TypeNode(parent, known=False)
            roots.append(nodes[parent])
        (nodes[parent].children if parent else roots).append(nodes[name])
    return sorted(roots, key=lambda node: node.name)


def count_nodes(nodes: list[TypeNode]) -> Iterator[TypeNode]:
    for node in nodes:
        if node.known:
            yield node
        yield from count_nodes(node.children)


async def _get(request: Request, session: Session, path: str, accept: str = "application/json") -> Any:
    response = await apis(request).call(
        "policy", "GET", API + path, session.credentials, headers={"Accept": accept}
    )
    if response.status_code != 200:
        return ApiError.of(response)
    return response.text if accept != "application/json" else response.json()


def _error_page(request: Request, error: ApiError, title: str) -> Response:
    return render(request, "api_error.html", {"title": title, "error": error}, refusal_status(error.status))


async def _raw_view(request: Request, session: Session, path: str, view: str) -> str | ApiError:
    if view == "yaml":
        result = await _get(request, session, path, "application/yaml")
        return result if isinstance(result, (str, ApiError)) else str(result)
    result = await _get(request, session, path)
    return result if isinstance(result, ApiError) else json.dumps(result, indent=2)


@router.get("/policy")
async def hierarchy(request: Request, session: Session = Depends(current_session)) -> Response:
    listing = await _get(request, session, "/policytypes")
    if isinstance(listing, ApiError):
        return _error_page(request, listing, "Policy types")
    roots = type_tree(listing.get("policy_types") or {})
    total = sum(1 for _ in count_nodes(roots))
    return render(request, "policy/hierarchy.html", {"title": "Policy types", "roots": roots, "total": total})


@router.get("/policy/types/{name}/versions/{version}")
async def policy_type(
    request: Request,
    name: str,
    version: str,
    view: str = "table",
    session: Session = Depends(current_session),
) -> Response:
    view = view if view in VIEWS else "table"
    path = f"/policytypes/{seg(name)}/versions/{seg(version)}"
    template = await _get(request, session, path)
    if isinstance(template, ApiError):
        return _error_page(request, template, name)
    entry = _entry_named(template.get("policy_types") or {}, name, version)
    versions = await _get(request, session, f"/policytypes/{seg(name)}")
    policies = await _get(request, session, path + "/policies")
    context = {
        "title": f"{name} {version}",
        "name": name,
        "version": version,
        "entry": entry,
        "data_types": template.get("data_types") or {},
        "versions": _versions(versions, name),
        "policies": _policies(policies),
        "policies_error": policies if isinstance(policies, ApiError) else None,
        "view": view,
        "raw": None if view == "table" else await _raw_view(request, session, path, view),
        "created": request.query_params.get("created") == "1",
    }
    return render(request, "policy/type.html", context)


def _entry_named(types: dict[str, Any], name: str, version: str) -> dict[str, Any]:
    for entry in types.values():
        if entry.get("name") == name and str(entry.get("version")) == version:
            return dict(entry)
    return {}


def _versions(template: Any, name: str) -> list[str]:
    if not isinstance(template, dict):
        return []
    found = {
        str(e.get("version")) for e in (template.get("policy_types") or {}).values() if e.get("name") == name
    }
    return sorted(found)


def _policies(template: Any) -> list[dict[str, Any]]:
    if not isinstance(template, dict):
        return []
    listed = (template.get("topology_template") or {}).get("policies") or []
    return [dict(entry) for item in listed for entry in item.values()]


@router.get("/policy/types/{name}/versions/{version}/policies/{policy}/versions/{policy_version}")
async def policy_page(
    request: Request,
    name: str,
    version: str,
    policy: str,
    policy_version: str,
    view: str = "table",
    session: Session = Depends(current_session),
) -> Response:
    view = view if view in VIEWS else "table"
    path = f"/policytypes/{seg(name)}/versions/{seg(version)}"
    path += f"/policies/{seg(policy)}/versions/{seg(policy_version)}"
    template = await _get(request, session, path)
    if isinstance(template, ApiError):
        return _error_page(request, template, policy)
    found = _policies(template)
    context = {
        "title": f"{policy} {policy_version}",
        "type_name": name,
        "type_version": version,
        "policy": found[0] if found else {},
        "view": view,
        "raw": None if view == "table" else await _raw_view(request, session, path, view),
        "created": request.query_params.get("created") == "1",
    }
    return render(request, "policy/policy.html", context)
