"""Where resolution results belong, and the reference's rules for asking after them.

A result (a resolved template, a resolved value) is keyed by blueprint (name, version),
artifact, and either a resolution key or a resource (type and id), never both.
"""

from __future__ import annotations

from ..web.errors import BadRequest
from .names import checked_name
from .repository.resolution_keys import ResolutionKey
from .repository.resolved_resources import ResourceQuery


def template_key(
    blueprint_name: str,
    blueprint_version: str,
    artifact_name: str,
    *,
    resolution_key: str = "",
    resource_type: str = "",
    resource_id: str = "",
    occurrence: int = 1,
) -> ResolutionKey:
    return ResolutionKey(
        blueprint_name=checked_name("bpName", blueprint_name),
        blueprint_version=checked_name("bpVersion", blueprint_version),
        artifact_name=checked_name("artifactName", artifact_name),
        resolution_key=checked_name("resolutionKey", resolution_key) if resolution_key else "",
        resource_type=checked_name("resourceType", resource_type) if resource_type else "",
        resource_id=checked_name("resourceId", resource_id) if resource_id else "",
        occurrence=occurrence,
    )


def template_query(
    blueprint_name: str,
    blueprint_version: str,
    artifact_name: str,
    resolution_key: str | None,
    resource_type: str | None,
    resource_id: str | None,
    occurrence: int,
) -> ResolutionKey:
    """``GET /template?...``: a resolution key, or a resource type and id, exactly one."""
    by_key = _given(resolution_key)
    by_resource = _given(resource_type) and _given(resource_id)
    if by_key == by_resource:
        raise BadRequest(
            "Either retrieve the template using resolutionKey OR using resourceType and resourceId."
        )
    if by_key:
        return template_key(
            blueprint_name,
            blueprint_version,
            artifact_name,
            resolution_key=resolution_key or "",
            occurrence=occurrence,
        )
    return template_key(
        blueprint_name,
        blueprint_version,
        artifact_name,
        resource_type=resource_type or "",
        resource_id=resource_id or "",
        occurrence=occurrence,
    )


def _given(value: str | None) -> bool:
    return bool(value and value.strip())


def values_query(
    blueprint_name: str,
    blueprint_version: str,
    artifact_name: str | None,
    resolution_key: str | None,
    resource_type: str | None,
    resource_id: str | None,
) -> ResourceQuery:
    """``GET /resources``: (artifact and resolution key) or (resource type and id), exactly one."""
    by_key = _given(artifact_name) and _given(resolution_key)
    by_resource = _given(resource_type) and _given(resource_id)
    either = (
        "Either retrieve resolved value using artifact name and resolution-key "
        "OR using resource-id and resource-type."
    )
    if by_key and by_resource:
        raise BadRequest(either)
    if by_key:
        return ResourceQuery(
            blueprint_name, blueprint_version, artifact_name=artifact_name, resolution_key=resolution_key
        )
    if by_resource:
        return ResourceQuery(
            blueprint_name, blueprint_version, resource_type=resource_type, resource_id=resource_id
        )
    raise BadRequest(f"Missing param. {either}")


def deletion_query(
    blueprint_name: str,
    blueprint_version: str,
    artifact_name: str,
    resolution_key: str | None,
    resource_type: str | None,
    resource_id: str | None,
) -> ResourceQuery:
    """``DELETE /resources``: every value of one resolution key, or of one resource."""
    if _given(resolution_key):
        return ResourceQuery(
            blueprint_name, blueprint_version, artifact_name=artifact_name, resolution_key=resolution_key
        )
    if _given(resource_type) and _given(resource_id):
        return ResourceQuery(
            blueprint_name,
            blueprint_version,
            artifact_name=artifact_name,
            resource_type=resource_type,
            resource_id=resource_id,
        )
    raise BadRequest("Either use resolutionKey or resourceType + resourceId. Values cannot be blank")


def named_value_query(
    blueprint_name: str, blueprint_version: str, artifact_name: str, resolution_key: str, name: str
) -> ResourceQuery:
    """``GET /resources/resource``: the value of one name under one resolution key."""
    return ResourceQuery(
        blueprint_name,
        blueprint_version,
        artifact_name=artifact_name,
        resolution_key=resolution_key,
        name=name,
    )
