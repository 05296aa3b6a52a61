"""Wire models of the policy API, for the OpenAPI document.

Requests are read by :mod:`tosca` (which needs the reference's messages, not pydantic's), and
answers are built by :mod:`documents`; these models describe both shapes truthfully: every
TOSCA object admits more fields than listed (``extra="allow"``), as TOSCA does.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ToscaEntity(BaseModel):
    """A data type, policy type, node type, policy or node template."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None
    version: str | None = None
    derived_from: str | None = None
    metadata: dict[str, Any] | None = None
    description: str | None = None
    type: str | None = None
    type_version: str | None = None
    properties: dict[str, Any] | None = None


class ToscaTopologyTemplate(BaseModel):
    model_config = ConfigDict(extra="allow")

    description: str | None = None
    node_templates: dict[str, ToscaEntity] | None = None
    policies: list[dict[str, ToscaEntity]] | None = None


class ToscaServiceTemplate(BaseModel):
    """The envelope of every policy-type, policy and node-template request and answer."""

    model_config = ConfigDict(extra="allow")

    tosca_definitions_version: str | None = None
    name: str | None = None
    version: str | None = None
    description: str | None = None
    data_types: dict[str, ToscaEntity] | None = None
    policy_types: dict[str, ToscaEntity] | None = None
    node_types: dict[str, ToscaEntity] | None = None
    topology_template: ToscaTopologyTemplate | None = None


class HealthReport(BaseModel):
    name: str
    url: str
    healthy: bool
    code: int
    message: str


class StatisticsReport(BaseModel):
    code: int
    totalApiCallCount: int
    apiCallSuccessCount: int
    apiCallFailureCount: int
    totalPolicyGetCount: int
    totalPolicyPostCount: int
    totalPolicyTypeGetCount: int
    totalPolicyTypePostCount: int
    policyGetSuccessCount: int
    policyGetFailureCount: int
    policyPostSuccessCount: int
    policyPostFailureCount: int
    policyTypeGetSuccessCount: int
    policyTypeGetFailureCount: int
    policyTypePostSuccessCount: int
    policyTypePostFailureCount: int
