"""The config tree's own API permissions: ``platform.configtree.api|config|read|write``.

Defined here rather than beside SPEC in :mod:`.app`, because the app module imports the routes
and the generated OpenAPI paths (:mod:`.openapi`), which both need them.
"""

from __future__ import annotations

from ..web.permissions import ServicePermissions

PERMISSIONS = ServicePermissions("configtree")
