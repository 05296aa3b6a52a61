"""The config tree's own API permissions: ``platform.configtree.api|config|read|write``.

Defined here rather than beside SPEC in :mod:`.spec`, because SPEC names the generated OpenAPI
paths (:mod:`.openapi`), which import the routes, which need them.
"""

from __future__ import annotations

from ..access.permissions import ServicePermissions

PERMISSIONS = ServicePermissions("configtree")
