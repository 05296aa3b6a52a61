"""What the authz service tells the kernel about itself."""

from __future__ import annotations

from ..access.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .errors import AuthzError, render_error

SPEC = ServiceSpec(
    name="authz",
    title="netplatform authz",
    version="1.0.0",
    render_error=render_error,
    error_model=AuthzError,
    error_descriptions={
        403: "The caller lacks the permission the operation declares",
        404: "No such identity, role or permission",
        409: "The identity, role or membership exists",
    },
)

PERMISSIONS = ServicePermissions("authz")
