"""What the bus controller tells the kernel about itself, and its permissions."""

from __future__ import annotations

from ..access.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .errors import ERROR_DESCRIPTIONS, ApiErrorBody, render_error

SPEC = ServiceSpec(
    name="bus",
    title="netplatform bus controller",
    version="1.1.0",
    render_error=render_error,
    error_model=ApiErrorBody,
    error_descriptions=ERROR_DESCRIPTIONS,
)

PERMISSIONS = ServicePermissions("bus")
"""``platform.bus.api|<first path segment>|read`` (GET) or ``|write``: every bus route declares one."""
