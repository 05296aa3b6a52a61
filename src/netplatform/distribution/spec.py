"""What the file-distribution service tells the kernel about itself, and its permissions."""

from __future__ import annotations

from ..access.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .errors import ERROR_MEDIA_TYPE, render_error

SPEC = ServiceSpec(
    name="distribution",
    title="netplatform file distribution",
    version="1.0.0",
    render_error=render_error,
    error_media_type=ERROR_MEDIA_TYPE,
)

PERMISSIONS = ServicePermissions("distribution")
"""The service's own API permissions (``platform.distribution.api|feeds|read`` ...) and its
internal routes' (``platform.distribution.internal|forward|call`` ...): docs/distribution.md."""
