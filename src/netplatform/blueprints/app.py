"""The blueprint catalog app: its identity, its routes and its service objects."""

from __future__ import annotations

from fastapi import FastAPI

from ..settings import Settings
from ..store.database_blobs import shared_blob_store
from ..store.generations import Generation
from ..web.app import build_app
from ..web.permissions import ServicePermissions
from ..web.service import ServiceSpec
from .archive import ArchiveLimits
from .blueprint_models import BlueprintModels
from .config_snapshots import ConfigSnapshots
from .dictionaries import Dictionaries
from .errors import ERROR_DESCRIPTIONS, ErrorPayload, render_error
from .model_types import ModelTypes
from .resolved_resources import ResolvedResources
from .resolved_templates import ResolvedTemplates
from .starter_catalog import StarterCatalog
from .tables import CATALOG_SCOPE, blob_chunks, generations

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


def create_app(settings: Settings) -> FastAPI:
    # The routes document their errors with SPEC, so they are imported once it exists.
    from .routes import (
        actuator,
        blueprint_models,
        config_snapshots,
        dictionaries,
        model_types,
        resolved_resources,
        resolved_templates,
    )

    routers = [
        actuator.router,
        blueprint_models.router,
        model_types.router,
        dictionaries.router,
        config_snapshots.router,
        resolved_templates.router,
        resolved_resources.router,
    ]
    app = build_app(SPEC, settings, routers=routers)
    state = app.state
    archives = shared_blob_store(state.db, state.blobs, blob_chunks)  # no shared directory on PostgreSQL
    state.blueprint_models = BlueprintModels(state.db, archives, ArchiveLimits.from_settings(settings))
    state.model_types = ModelTypes(state.db)
    state.catalog = Generation(state.db, generations, CATALOG_SCOPE)
    state.dictionaries = Dictionaries(state.db)
    state.config_snapshots = ConfigSnapshots(state.db)
    state.resolved_templates = ResolvedTemplates(state.db)
    state.resolved_resources = ResolvedResources(state.db)
    state.starter_catalog = StarterCatalog(state.blueprint_models, state.model_types, state.dictionaries)
    return app
