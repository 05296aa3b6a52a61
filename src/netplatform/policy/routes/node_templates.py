"""Node templates (metadata sets): GET, POST and PUT /nodetemplates, GET and DELETE one version.

Node template bodies are JSON only (spec 4.4).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.bodies import RawBody
from ...web.permissions import requires
from ..deps import NodeTemplatesDep
from ..media_types import JSON_MEDIA_TYPE, answer_format, encode
from ..schemas import NODE_TEMPLATES_REQUEST, ToscaEntity, ToscaServiceTemplate
from ..spec import PERMISSIONS
from ..statistics import PREFIX
from ..versions import check_name, check_version
from ._common import CREATE_ERRORS, NamePath, VersionPath, documented, read_template, template_body

router = APIRouter(prefix=PREFIX, tags=["policy design"])


@router.get(
    "/nodetemplates",
    summary="All node templates",
    responses=documented(list[ToscaEntity]),
    openapi_extra=requires(PERMISSIONS.read("nodetemplates")),
)
def get_node_templates(request: Request, node_templates: NodeTemplatesDep) -> Response:
    return reply(encode(node_templates.all(), answer_format(request)))


@router.post(
    "/nodetemplates",
    summary="Create node templates (and the node types they carry)",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra={
        **template_body(NODE_TEMPLATES_REQUEST, JSON_MEDIA_TYPE),
        **requires(PERMISSIONS.write("nodetemplates")),
    },
)
def create_node_templates(request: Request, node_templates: NodeTemplatesDep, body: RawBody) -> Response:
    raw = read_template(request, body, yaml_allowed=False)
    return reply(encode(node_templates.create(raw), answer_format(request)))


@router.put(
    "/nodetemplates",
    summary="Replace stored node templates",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra={
        **template_body(NODE_TEMPLATES_REQUEST, JSON_MEDIA_TYPE),
        **requires(PERMISSIONS.write("nodetemplates")),
    },
)
def update_node_templates(request: Request, node_templates: NodeTemplatesDep, body: RawBody) -> Response:
    raw = read_template(request, body, yaml_allowed=False)
    return reply(encode(node_templates.update(raw), answer_format(request)))


@router.get(
    "/nodetemplates/{name}/versions/{version}",
    summary="One node template, as a list of zero or one",
    responses=documented(list[ToscaEntity]),
    openapi_extra=requires(PERMISSIONS.read("nodetemplates")),
)
def get_node_template(
    request: Request, node_templates: NodeTemplatesDep, name: NamePath, version: VersionPath
) -> Response:
    found = node_templates.one(check_name(name), check_version(version))
    return reply(encode(found, answer_format(request)))


@router.delete(
    "/nodetemplates/{name}/versions/{version}",
    summary="Delete one node template",
    responses=documented(ToscaServiceTemplate, 404, 409),
    openapi_extra=requires(PERMISSIONS.write("nodetemplates")),
)
def delete_node_template(
    request: Request, node_templates: NodeTemplatesDep, name: NamePath, version: VersionPath
) -> Response:
    deleted = node_templates.delete(check_name(name), check_version(version))
    return reply(encode(deleted, answer_format(request)))
