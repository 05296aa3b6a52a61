"""What the config tree tells the kernel about itself.

Its permissions are in :mod:`.permissions`: this module names the generated OpenAPI paths
(:mod:`.openapi`), which import the routes, which need the permissions.
"""

from __future__ import annotations

from ..web.service import ServiceSpec
from .errors import RestconfErrors, render_error
from .openapi import add_node_paths

SPEC = ServiceSpec(
    name="configtree",
    title="netplatform config tree",
    version="1.0.0",
    render_error=render_error,
    error_model=RestconfErrors,
    openapi_extension=add_node_paths,
)
