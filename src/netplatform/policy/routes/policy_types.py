"""Policy types: GET and POST /policytypes, GET /policytypes/{id}, GET and DELETE one version."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.bodies import RawBody
from ...web.permissions import requires
from ..deps import REPLAYABLE, REPLAYABLE_POLICY_TYPE, CatalogDep
from ..media_types import answer_format, encode
from ..schemas import POLICY_TYPES_REQUEST, ToscaServiceTemplate
from ..spec import PERMISSIONS
from ..statistics import PREFIX
from ..tosca import Section
from ..versions import check_name, check_selector, check_version
from ._common import (
    BOTH_MEDIA_TYPES,
    CREATE_ERRORS,
    NamePath,
    SelectorPath,
    VersionPath,
    documented,
    read_template,
    template_body,
)

router = APIRouter(prefix=PREFIX, tags=["policy design"])


@router.get(
    "/policytypes",
    summary="All policy types",
    responses=documented(ToscaServiceTemplate),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("policytypes")),
)
async def get_policy_types(request: Request, catalog: CatalogDep) -> Response:
    return reply(await catalog.policy_types(answer_format(request)))


@router.post(
    "/policytypes",
    summary="Create policy types (and the data types they carry)",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra={
        **template_body(POLICY_TYPES_REQUEST, *BOTH_MEDIA_TYPES),
        **requires(PERMISSIONS.write("policytypes")),
    },
)
def create_policy_types(request: Request, catalog: CatalogDep, body: RawBody) -> Response:
    raw = read_template(request, body)
    created = catalog.create(raw, Section.POLICY_TYPES)
    return reply(encode(created, answer_format(request)))


@router.get(
    "/policytypes/{policyTypeId}",
    summary="All versions of one policy type",
    responses=documented(ToscaServiceTemplate, 404),
    dependencies=[REPLAYABLE_POLICY_TYPE],
    openapi_extra=requires(PERMISSIONS.read("policytypes")),
)
async def get_policy_type_versions(request: Request, catalog: CatalogDep, policyTypeId: NamePath) -> Response:
    return reply(await catalog.policy_type_versions(check_name(policyTypeId), answer_format(request)))


@router.get(
    "/policytypes/{policyTypeId}/versions/{versionId}",
    summary="One version of a policy type (versionId `latest`: the highest version)",
    responses=documented(ToscaServiceTemplate, 404),
    dependencies=[REPLAYABLE_POLICY_TYPE],
    openapi_extra=requires(PERMISSIONS.read("policytypes")),
)
async def get_policy_type(
    request: Request, catalog: CatalogDep, policyTypeId: NamePath, versionId: SelectorPath
) -> Response:
    found = await catalog.policy_type(
        check_name(policyTypeId), check_selector(versionId), answer_format(request)
    )
    return reply(found)


@router.delete(
    "/policytypes/{policyTypeId}/versions/{versionId}",
    summary="Delete one version of a policy type",
    responses=documented(ToscaServiceTemplate, 404, 409),
    openapi_extra=requires(PERMISSIONS.write("policytypes")),
)
def delete_policy_type(
    request: Request, catalog: CatalogDep, policyTypeId: NamePath, versionId: VersionPath
) -> Response:
    deleted = catalog.delete_policy_type(check_name(policyTypeId), check_version(versionId))
    return reply(encode(deleted, answer_format(request)))
