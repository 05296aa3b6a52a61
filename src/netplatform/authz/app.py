"""The authz service (port 8087): identities, roles, permissions and memberships over REST.

The tables are the kernel's (:mod:`netplatform.access`): every service decides from them, and
every write here moves their generation (triggers), so every instance's decisions follow
within the kernel's refresh interval.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware import Middleware

from ..access.directory import AccessDirectory
from ..settings import Settings
from ..web.app import build_app
from .deps import OBJECTS, AuthzObjects
from .directory_feed import DirectoryFeed
from .identities import Identities
from .memberships import Memberships
from .replica_guard import ReplicaGuard
from .roles import Roles
from .routes import credentials, directory, listings, memberships, roles
from .spec import SPEC


def create_app(settings: Settings) -> FastAPI:
    # At a site that follows a central directory, changes go there (authz/replica_guard.py).
    guard = [Middleware(ReplicaGuard, source=settings.authz_url)] if settings.authz_url else []
    app = build_app(
        SPEC,
        settings,
        routers=[credentials.router, roles.router, memberships.router, listings.router, directory.router],
        middleware=guard,
    )
    db = app.state.db
    access: AccessDirectory = app.state.access
    configured = access.configured
    OBJECTS.install(
        app,
        AuthzObjects(
            Identities(db, access), Roles(db, configured), Memberships(db, configured), DirectoryFeed(db)
        ),
    )
    return app
