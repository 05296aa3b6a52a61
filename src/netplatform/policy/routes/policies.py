"""Policies: of one policy type version (under /policytypes/...) and of any type (/policies)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.bodies import RawBody
from ...web.permissions import requires
from ..deps import REPLAYABLE, CatalogDep
from ..media_types import answer_format, encode
from ..schemas import POLICIES_REQUEST, ToscaServiceTemplate
from ..spec import PERMISSIONS
from ..statistics import PREFIX
from ..tosca import Section
from ..versions import Reference, check_name, check_selector, check_version
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

TYPE_PATH = "/policytypes/{policyTypeId}/versions/{policyTypeVersion}/policies"

Mode = Annotated[
    str,
    Query(
        description="BARE (default): the policies only; REFERENCED: with their types and data types. "
        "Case-insensitive; any other value means BARE",
        json_schema_extra={"enum": ["BARE", "REFERENCED"]},
    ),
]


def is_referenced(mode: str) -> bool:
    """``mode`` is case-insensitive; an unknown value means BARE (reference 3.3)."""
    return mode.strip().upper() == "REFERENCED"


def policy_type_of(policy_type_id: str, policy_type_version: str) -> Reference:
    return Reference(check_name(policy_type_id), check_version(policy_type_version))


# --- policies of one policy type ----------------------------------------------------------------


@router.get(
    TYPE_PATH,
    summary="All policies of one policy type version",
    responses=documented(ToscaServiceTemplate, 404),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("policies")),
)
async def get_policies_of_type(
    request: Request,
    catalog: CatalogDep,
    policyTypeId: NamePath,
    policyTypeVersion: VersionPath,
    mode: Mode = "BARE",
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    form = answer_format(request)
    return reply(await catalog.policies_of_type(policy_type, form, referenced=is_referenced(mode)))


@router.post(
    TYPE_PATH,
    summary="Create policies of this policy type version",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra={
        **template_body(POLICIES_REQUEST, *BOTH_MEDIA_TYPES),
        **requires(PERMISSIONS.write("policies")),
    },
)
def create_policies_of_type(
    request: Request,
    catalog: CatalogDep,
    body: RawBody,
    policyTypeId: NamePath,
    policyTypeVersion: VersionPath,
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    raw = read_template(request, body)
    created = catalog.create(raw, Section.POLICIES, policy_type=policy_type)
    return reply(encode(created, answer_format(request)))


@router.get(
    TYPE_PATH + "/{policyId}",
    summary="All versions of one policy of this policy type version",
    responses=documented(ToscaServiceTemplate, 404),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("policies")),
)
def get_policy_versions_of_type(
    request: Request,
    catalog: CatalogDep,
    policyTypeId: NamePath,
    policyTypeVersion: VersionPath,
    policyId: NamePath,
    mode: Mode = "BARE",
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    found = catalog.policy_versions_of_type(policy_type, check_name(policyId), referenced=is_referenced(mode))
    return reply(encode(found, answer_format(request)))


@router.get(
    TYPE_PATH + "/{policyId}/versions/{policyVersion}",
    summary="One version of a policy of this policy type version (policyVersion `latest`: the highest)",
    responses=documented(ToscaServiceTemplate, 404),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("policies")),
)
def get_policy_of_type(
    request: Request,
    catalog: CatalogDep,
    policyTypeId: NamePath,
    policyTypeVersion: VersionPath,
    policyId: NamePath,
    policyVersion: SelectorPath,
    mode: Mode = "BARE",
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    found = catalog.policy_of_type(
        policy_type, check_name(policyId), check_selector(policyVersion), referenced=is_referenced(mode)
    )
    return reply(encode(found, answer_format(request)))


@router.delete(
    TYPE_PATH + "/{policyId}/versions/{policyVersion}",
    summary="Delete one version of a policy of this policy type version",
    responses=documented(ToscaServiceTemplate, 404, 409),
    openapi_extra=requires(PERMISSIONS.write("policies")),
)
def delete_policy_of_type(
    request: Request,
    catalog: CatalogDep,
    policyTypeId: NamePath,
    policyTypeVersion: VersionPath,
    policyId: NamePath,
    policyVersion: VersionPath,
) -> Response:
    policy_type = policy_type_of(policyTypeId, policyTypeVersion)
    deleted = catalog.delete_policy(
        check_name(policyId), check_version(policyVersion), policy_type=policy_type
    )
    return reply(encode(deleted, answer_format(request)))


# --- policies of any type -------------------------------------------------------------------------


@router.get(
    "/policies",
    summary="All versions of all policies",
    responses=documented(ToscaServiceTemplate, 404),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("policies")),
)
async def get_policies(request: Request, catalog: CatalogDep, mode: Mode = "BARE") -> Response:
    return reply(await catalog.policies(answer_format(request), referenced=is_referenced(mode)))


@router.post(
    "/policies",
    summary="Create one or more policies (of any types)",
    responses=documented(ToscaServiceTemplate, *CREATE_ERRORS),
    openapi_extra={
        **template_body(POLICIES_REQUEST, *BOTH_MEDIA_TYPES),
        **requires(PERMISSIONS.write("policies")),
    },
)
def create_policies(request: Request, catalog: CatalogDep, body: RawBody) -> Response:
    raw = read_template(request, body)
    created = catalog.create(raw, Section.POLICIES)
    return reply(encode(created, answer_format(request)))


@router.get(
    "/policies/{policyId}/versions/{policyVersion}",
    summary="One version of a policy (policyVersion `latest`: the highest)",
    responses=documented(ToscaServiceTemplate, 404),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("policies")),
)
def get_policy(
    request: Request,
    catalog: CatalogDep,
    policyId: NamePath,
    policyVersion: SelectorPath,
    mode: Mode = "BARE",
) -> Response:
    found = catalog.policy(
        check_name(policyId), check_selector(policyVersion), referenced=is_referenced(mode)
    )
    return reply(encode(found, answer_format(request)))


@router.delete(
    "/policies/{policyId}/versions/{policyVersion}",
    summary="Delete one version of a policy",
    responses=documented(ToscaServiceTemplate, 404, 409),
    openapi_extra=requires(PERMISSIONS.write("policies")),
)
def delete_policy(
    request: Request, catalog: CatalogDep, policyId: NamePath, policyVersion: VersionPath
) -> Response:
    deleted = catalog.delete_policy(check_name(policyId), check_version(policyVersion))
    return reply(encode(deleted, answer_format(request)))
