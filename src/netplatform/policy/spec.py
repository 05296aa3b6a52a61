"""What the policy design service tells the kernel about itself, and its permissions."""

from __future__ import annotations

from ..access.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .errors import ERROR_DESCRIPTIONS, ErrorResponse, render_error, version_headers
from .media_types import YAML_MEDIA_TYPE

MAX_BODY_BYTES = 8 * 1024 * 1024
"""Policy bodies are TOSCA text: the whole preloaded catalog is ~100 KB. YAML parsing is costly,
so the bound is tighter than the kernel's default (a lower NETPLATFORM_MAX_BODY_BYTES still wins)."""

SPEC = ServiceSpec(
    name="policy",
    title="netplatform policy design",
    version="1.0.0",
    render_error=render_error,
    error_model=ErrorResponse,
    error_media_types=(YAML_MEDIA_TYPE,),
    error_descriptions=ERROR_DESCRIPTIONS,
    response_headers=version_headers,
    max_body_bytes=MAX_BODY_BYTES,
)

PERMISSIONS = ServicePermissions(SPEC.name)
"""``platform.policy.api|<resource>|read|write``: what each route declares (routes/*.py)."""
