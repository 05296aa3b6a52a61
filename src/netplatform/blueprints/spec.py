"""What the blueprint catalog tells the kernel about itself, and its permissions."""

from __future__ import annotations

from ..access.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .errors import ERROR_DESCRIPTIONS, ErrorPayload, render_error

SPEC = ServiceSpec(
    name="blueprints",
    title="netplatform blueprint catalog",
    version="1.0.0",
    render_error=render_error,
    error_model=ErrorPayload,
    error_descriptions=ERROR_DESCRIPTIONS,
    echoed_headers=("X-PLATFORM-InvocationID",),
)

PERMISSIONS = ServicePermissions(SPEC.name)
"""``platform.blueprints.api|<resource>|read|write``: what each route declares (routes/*.py)."""
