"""HTTP routes of the policy design API (spec 4.4): parse the request, call the domain, render.

Every answer is JSON, or YAML when the client's Accept header prefers it; request bodies are
JSON or YAML (node templates: JSON only). Path names and versions are checked here, so the
domain only ever sees well-formed keys.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import Response
from starlette.middleware import Middleware

from ..settings import Settings
from ..store.db import database_for
from ..web.app import build_app
from ..web.service import ServiceSpec
from .catalog import Catalog
from .counting import CountingMiddleware
from .errors import ErrorResponse, render_error, version_headers
from .media import JSON_MEDIA_TYPE, YAML_MEDIA_TYPE, render
from .nodetemplates import NodeTemplates
from .payload import decode
from .preload import load_catalog
from .repository import PolicyStore
from .schemas import HealthReport, StatisticsReport, ToscaEntity, ToscaServiceTemplate
from .statistics import PREFIX, Statistics
from .tosca import REPEATABLE_MAPS, Section
from .versions import Reference, check_name, check_selector, check_version

MAX_BODY_BYTES = 8 * 1024 * 1024
"""Policy bodies are TOSCA text: the whole preloaded catalog is ~100 KB. YAML parsing is costly,
so the bound is tighter than the kernel's default (a lower NETPLATFORM_MAX_BODY_BYTES still wins)."""

SPEC = ServiceSpec(
    name="policy",
    title="netplatform policy design",
    version="1.0.0",
    render_error=render_error,
    error_model=ErrorResponse,
    response_headers=version_headers,
    max_body_bytes=MAX_BODY_BYTES,
)


@dataclass(frozen=True)
class PolicyService:
    catalog: Catalog
    node_templates: NodeTemplates
    statistics: Statistics
    store: PolicyStore
    instance_name: str


def service(request: Request) -> PolicyService:
    return request.app.state.policy  # type: ignore[no-any-return]


async def raw_body(request: Request) -> bytes:
    return await request.body()


Service = Annotated[PolicyService, Depends(service)]
Body = Annotated[bytes, Depends(raw_body)]
Mode = Annotated[
    str,
    Query(description="BARE (default): the policies only; REFERENCED: with their types and data types"),
]

# --- OpenAPI declarations -----------------------------------------------------------------------

_ERROR_DESCRIPTIONS = {
    400: "Invalid Body or parameter",
    401: "Authentication Error",
    404: "Resource Not Found",
    406: "Not Acceptable Version or Payload",
    409: "Delete Conflict, Rule Violation",
    413: "Request body too large",
    415: "Unsupported media type",
}


def documented(model: Any, *errors: int) -> dict[int | str, dict[str, Any]]:
    """The responses of a route: 200 with ``model`` and each error status, JSON or YAML."""
    responses: dict[int | str, dict[str, Any]] = {
        200: {"model": model, "description": "Success", "content": {YAML_MEDIA_TYPE: {}}}
    }
    for status in (400, 401, *errors):
        responses[status] = {
            "model": ErrorResponse,
            "description": _ERROR_DESCRIPTIONS[status],
            "content": {YAML_MEDIA_TYPE: {}},
        }
    return responses


def template_body(*media_types: str) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/ToscaServiceTemplate"}
    return {
        "requestBody": {
            "required": True,
            "content": {media_type: {"schema": schema} for media_type in media_types},
        }
    }


TEMPLATE_BODY = template_body(JSON_MEDIA_TYPE, YAML_MEDIA_TYPE)
JSON_TEMPLATE_BODY = template_body(JSON_MEDIA_TYPE)
CREATE_ERRORS = (406, 409, 413, 415)

# --- request parsing ------------------------------------------------------------------------------


def read_template(request: Request, body: bytes, *, yaml_allowed: bool = True) -> Any:
    return decode(
        body,
        request.headers.get("content-type"),
        yaml_allowed=yaml_allowed,
        repeatable_maps=REPEATABLE_MAPS,
    )


def is_referenced(mode: str) -> bool:
    """``mode`` is case-insensitive; an unknown value means BARE (reference 3.3)."""
    return mode.strip().upper() == "REFERENCED"


def policy_type_of(policy_type_id: str, policy_type_version: str) -> Reference:
    return Reference(check_name(policy_type_id), check_version(policy_type_version))


router = APIRouter(prefix=PREFIX, tags=["policy design"])

# --- health and statistics ------------------------------------------------------------------------


HEALTH_RESPONSES = {
    **documented(HealthReport),
    503: {"model": HealthReport, "description": "Database unreachable", "content": {YAML_MEDIA_TYPE: {}}},
}


@router.get("/healthcheck", summary="Health of the API and its database", responses=HEALTH_RESPONSES)
def healthcheck(request: Request, policy: Service) -> Response:
    if policy.store.reachable():
        report = HealthReport(
            name="Policy API", url=policy.instance_name, healthy=True, code=200, message="alive"
        )
    else:
        report = HealthReport(
            name="Policy API",
            url=policy.instance_name,
            healthy=False,
            code=503,
            message="unable to connect with database",
        )
    return render(request, report.model_dump(), report.code)


@router.get("/statistics", summary="Counters of API calls", responses=documented(StatisticsReport))
def statistics(request: Request, policy: Service) -> Response:
    return render(request, policy.statistics.report())


# --- policy types -----------------------------------------------------------------------------------


@router.get("/policytypes", summary="All policy types", responses=documented(ToscaServiceTemplate))
def get_policy_types(request: Request, policy: Service) -> Response:
    return render(request, policy.catalog.policy_types())


@router.post(
    "/policytypes",
    summary="Create policy types (and the data types they carry)",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra=TEMPLATE_BODY,
)
def create_policy_types(request: Request, policy: Service, body: Body) -> Response:
    raw = read_template(request, body)
    return render(request, policy.catalog.create(raw, Section.POLICY_TYPES))


@router.get(
    "/policytypes/{policyTypeId}",
    summary="All versions of one policy type",
    responses=documented(ToscaServiceTemplate, 404),
)
def get_policy_type_versions(request: Request, policy: Service, policyTypeId: str) -> Response:
    return render(request, policy.catalog.policy_type_versions(check_name(policyTypeId)))


@router.get(
    "/policytypes/{policyTypeId}/versions/{versionId}",
    summary="One version of a policy type (versionId `latest`: the highest version)",
    responses=documented(ToscaServiceTemplate, 404),
)
def get_policy_type(request: Request, policy: Service, policyTypeId: str, versionId: str) -> Response:
    return render(request, policy.catalog.policy_type(check_name(policyTypeId), check_selector(versionId)))


@router.delete(
    "/policytypes/{policyTypeId}/versions/{versionId}",
    summary="Delete one version of a policy type",
    responses=documented(ToscaServiceTemplate, 404, 409),
)
def delete_policy_type(request: Request, policy: Service, policyTypeId: str, versionId: str) -> Response:
    return render(
        request, policy.catalog.delete_policy_type(check_name(policyTypeId), check_version(versionId))
    )


# --- policies of one policy type ----------------------------------------------------------------

TYPE_PATH = "/policytypes/{policyTypeId}/versions/{policyTypeVersion}/policies"


@router.get(
    TYPE_PATH,
    summary="All policies of one policy type version",
    responses=documented(ToscaServiceTemplate, 404),
)
def get_policies_of_type(
    request: Request,
    policy: Service,
    policyTypeId: str,
    policyTypeVersion: str,
    mode: Mode = "BARE",
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    return render(request, policy.catalog.policies_of_type(policy_type, referenced=is_referenced(mode)))


@router.post(
    TYPE_PATH,
    summary="Create policies of this policy type version",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra=TEMPLATE_BODY,
)
def create_policies_of_type(
    request: Request,
    policy: Service,
    body: Body,
    policyTypeId: str,
    policyTypeVersion: str,
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    raw = read_template(request, body)
    return render(request, policy.catalog.create(raw, Section.POLICIES, policy_type=policy_type))


@router.get(
    TYPE_PATH + "/{policyId}",
    summary="All versions of one policy of this policy type version",
    responses=documented(ToscaServiceTemplate, 404),
)
def get_policy_versions_of_type(
    request: Request,
    policy: Service,
    policyTypeId: str,
    policyTypeVersion: str,
    policyId: str,
    mode: Mode = "BARE",
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    found = policy.catalog.policy_versions_of_type(
        policy_type, check_name(policyId), referenced=is_referenced(mode)
    )
    return render(request, found)


@router.get(
    TYPE_PATH + "/{policyId}/versions/{policyVersion}",
    summary="One version of a policy of this policy type version (policyVersion `latest`: the highest)",
    responses=documented(ToscaServiceTemplate, 404),
)
def get_policy_of_type(
    request: Request,
    policy: Service,
    policyTypeId: str,
    policyTypeVersion: str,
    policyId: str,
    policyVersion: str,
    mode: Mode = "BARE",
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    found = policy.catalog.policy_of_type(
        policy_type, check_name(policyId), check_selector(policyVersion), referenced=is_referenced(mode)
    )
    return render(request, found)


@router.delete(
    TYPE_PATH + "/{policyId}/versions/{policyVersion}",
    summary="Delete one version of a policy of this policy type version",
    responses=documented(ToscaServiceTemplate, 404, 409),
)
def delete_policy_of_type(
    request: Request,
    policy: Service,
    policyTypeId: str,
    policyTypeVersion: str,
    policyId: str,
    policyVersion: str,
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    deleted = policy.catalog.delete_policy(
        check_name(policyId), check_version(policyVersion), policy_type=policy_type
    )
    return render(request, deleted)


# --- policies -----------------------------------------------------------------------------------------


@router.get(
    "/policies", summary="All versions of all policies", responses=documented(ToscaServiceTemplate, 404)
)
def get_policies(request: Request, policy: Service, mode: Mode = "BARE") -> Response:
    return render(request, policy.catalog.policies(referenced=is_referenced(mode)))


@router.post(
    "/policies",
    summary="Create one or more policies (of any types)",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra=TEMPLATE_BODY,
)
def create_policies(request: Request, policy: Service, body: Body) -> Response:
    raw = read_template(request, body)
    return render(request, policy.catalog.create(raw, Section.POLICIES))


@router.get(
    "/policies/{policyId}/versions/{policyVersion}",
    summary="One version of a policy (policyVersion `latest`: the highest)",
    responses=documented(ToscaServiceTemplate, 404),
)
def get_policy(
    request: Request,
    policy: Service,
    policyId: str,
    policyVersion: str,
    mode: Mode = "BARE",
) -> Response:
    found = policy.catalog.policy(
        check_name(policyId), check_selector(policyVersion), referenced=is_referenced(mode)
    )
    return render(request, found)


@router.delete(
    "/policies/{policyId}/versions/{policyVersion}",
    summary="Delete one version of a policy",
    responses=documented(ToscaServiceTemplate, 404, 409),
)
def delete_policy(request: Request, policy: Service, policyId: str, policyVersion: str) -> Response:
    return render(request, policy.catalog.delete_policy(check_name(policyId), check_version(policyVersion)))


# --- node templates (metadata sets) ---------------------------------------------------------------


@router.get("/nodetemplates", summary="All node templates", responses=documented(list[ToscaEntity]))
def get_node_templates(request: Request, policy: Service) -> Response:
    return render(request, policy.node_templates.all())


@router.post(
    "/nodetemplates",
    summary="Create node templates (and the node types they carry)",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra=JSON_TEMPLATE_BODY,
)
def create_node_templates(request: Request, policy: Service, body: Body) -> Response:
    raw = read_template(request, body, yaml_allowed=False)
    return render(request, policy.node_templates.create(raw))


@router.put(
    "/nodetemplates",
    summary="Replace stored node templates",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra=JSON_TEMPLATE_BODY,
)
def update_node_templates(request: Request, policy: Service, body: Body) -> Response:
    raw = read_template(request, body, yaml_allowed=False)
    return render(request, policy.node_templates.update(raw))


@router.get(
    "/nodetemplates/{name}/versions/{version}",
    summary="One node template, as a list of zero or one",
    responses=documented(list[ToscaEntity]),
)
def get_node_template(request: Request, policy: Service, name: str, version: str) -> Response:
    return render(request, policy.node_templates.one(check_name(name), check_version(version)))


@router.delete(
    "/nodetemplates/{name}/versions/{version}",
    summary="Delete one node template",
    responses=documented(ToscaServiceTemplate, 404, 409),
)
def delete_node_template(request: Request, policy: Service, name: str, version: str) -> Response:
    return render(request, policy.node_templates.delete(check_name(name), check_version(version)))


# --- the app ----------------------------------------------------------------------------------------------


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Load the preloaded catalog on the first start of an empty store; flush statistics meanwhile."""
    policy: PolicyService = app.state.policy
    await anyio.to_thread.run_sync(load_catalog, policy.catalog)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(policy.statistics.flush_periodically)
        try:
            yield
        finally:
            tasks.cancel_scope.cancel()
    await policy.statistics.flush_now()


def create_app(settings: Settings) -> FastAPI:
    store = PolicyStore(database_for(settings))
    catalog = Catalog(store)
    policy = PolicyService(
        catalog=catalog,
        node_templates=NodeTemplates(catalog),
        statistics=Statistics(store),
        store=store,
        instance_name=socket.gethostname(),  # the reference reports the host name
    )
    app = build_app(
        SPEC,
        settings,
        routers=[router],
        lifespan=lifespan,
        middleware=[Middleware(CountingMiddleware, statistics=policy.statistics)],
    )
    app.state.policy = policy
    return app
