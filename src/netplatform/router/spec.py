"""What the message router tells the kernel about itself, and its permissions."""

from __future__ import annotations

from ..access.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .errors import RouterError, render_error

SPEC = ServiceSpec(
    name="router",
    title="netplatform message router",
    version="1.0.0",
    render_error=render_error,
    error_model=RouterError,
    error_descriptions={
        403: "The caller lacks the route's permission, is not on the topic's ACL, or may not "
        "administer the topic",
        404: "No such topic",
        409: "The topic exists",
        503: "The message engine is unavailable",
    },
)

PERMISSIONS = ServicePermissions(SPEC.name)
"""``platform.router.api|topics|read|write`` and ``platform.router.internal|mirror|call``: what
each route declares (routes/*.py). Publish, fetch and topic reads are per object (a topic's ACL)."""
