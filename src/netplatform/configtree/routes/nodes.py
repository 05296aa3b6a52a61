"""HTTP routes of the config tree: GET, POST, PUT and DELETE on every node under ``/config/``.

One route per method takes any path below ``/config/``; the path is parsed against the YANG
schema from the raw request path (so ``%2F`` inside a key stays part of the key). The OpenAPI
document lists every node's path explicitly; it is generated from the same schema
(:mod:`..openapi`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from anyio.to_thread import run_sync
from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.permissions import requires
from ..deps import REPLAYABLE, ConfigTreeDep, raw_path
from ..edits import creations, replacement
from ..errors import restconf_error
from ..media_types import require_json_request, response_media_type
from ..paths import Target, below_config, parse_target
from ..permissions import PERMISSIONS
from ..service import ConfigTree

MAX_DEPTH = 65535
NODE_PATH = "/{path:any_path}"  # a key may hold %0A
NODE_METHODS = ("GET", "POST", "PUT", "DELETE")
OTHER_METHODS = ("PATCH", "HEAD", "OPTIONS", "TRACE")

router = APIRouter(prefix="/config", tags=["config tree"])

Handler = Callable[[Request, ConfigTree], Awaitable[Response]]


# GET (and HEAD) read, every other method writes: PATCH, OPTIONS and TRACE, which the route
# refuses itself (405), are refused as writes first to a caller who may only read.
@router.api_route(
    NODE_PATH,
    methods=[*NODE_METHODS, *OTHER_METHODS],
    include_in_schema=False,
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.by_method("config")),
)
async def config_node(request: Request, tree: ConfigTreeDep) -> Response:
    """Every node, every method: one route, so a 405 names the methods of the node addressed."""
    handler = _HANDLERS.get(request.method, refuse_method)
    return await handler(request, tree)


async def read_node(request: Request, tree: ConfigTree) -> Response:
    media_type = response_media_type(request.headers.get("accept"))
    target = _target(request, keyless_list_allowed=False)
    depth = _depth(request.query_params.get("depth"))
    body = await run_sync(tree.read, target, depth)
    return reply(body, media_type=media_type)


async def create_node(request: Request, tree: ConfigTree) -> Response:
    response_media_type(request.headers.get("accept"))
    require_json_request(request.headers.get("content-type"))
    target = _target(request, keyless_list_allowed=True)
    body = await request.body()

    def create() -> Target:
        edits = creations(target, body)
        tree.create(edits)
        return edits[0].addressable_target

    created = await run_sync(create)
    return reply(None, 201, headers={"Location": _url(request, created)})


async def replace_node(request: Request, tree: ConfigTree) -> Response:
    response_media_type(request.headers.get("accept"))
    require_json_request(request.headers.get("content-type"))
    target = _target(request, keyless_list_allowed=False)
    body = await request.body()
    created = await run_sync(lambda: tree.replace(replacement(target, body)))
    return reply(None, 201 if created else 204)


async def delete_node(request: Request, tree: ConfigTree) -> Response:
    response_media_type(request.headers.get("accept"))
    target = _target(request, keyless_list_allowed=False)
    await run_sync(tree.delete, target)
    return reply(None, 204)


async def refuse_method(request: Request, tree: ConfigTree) -> Response:
    target = _target(request, keyless_list_allowed=True)
    allowed = ["POST"] if target.is_list_without_keys else sorted(NODE_METHODS)
    raise restconf_error(
        "operation-not-supported",
        f"Method {request.method} is not supported on {target.instance_identifier()}",
        headers={"Allow": ", ".join(allowed)},
    )


_HANDLERS: dict[str, Handler] = {
    "GET": read_node,
    "POST": create_node,
    "PUT": replace_node,
    "DELETE": delete_node,
}


def _target(request: Request, *, keyless_list_allowed: bool) -> Target:
    """The addressed node, from the raw path (the decoded ``path`` would turn ``%2F`` into ``/``)."""
    target = parse_target(below_config(raw_path(request)))
    if target.is_list_without_keys and not keyless_list_allowed:
        message = f'Missing key for list "{target.node.name}".'
        raise restconf_error("operation-not-supported", message, headers={"Allow": "POST"})
    return target


def _depth(text: str | None) -> int | None:
    """The ``depth`` query parameter: 1..65535 levels, or ``unbounded`` (None)."""
    if text is None or text == "unbounded":
        return None
    if text.isascii() and text.isdigit() and len(text) <= 5 and 1 <= int(text) <= MAX_DEPTH:
        return int(text)
    raise restconf_error("invalid-value", f"Invalid depth parameter: {text}")


def _url(request: Request, target: Target) -> str:
    return str(request.base_url).rstrip("/") + target.uri_path()
