"""HTTP face of the blueprint catalog: SPEC, the app factory, one router module per resource."""

from __future__ import annotations

from fastapi import FastAPI

from ...settings import Settings
from ...web.app import build_app
from ...web.service import ServiceSpec
from ..archive import ArchiveLimits
from ..catalog import BlueprintCatalog
from ..errors import ErrorPayload, render_error
from . import actuator, blueprint_models, configs, dictionaries, model_types, resources, templates

SPEC = ServiceSpec(
    name="blueprints",
    title="netplatform blueprint catalog",
    version="1.0.0",
    render_error=render_error,
    error_model=ErrorPayload,
    echoed_headers=("X-PLATFORM-InvocationID",),
)

ROUTERS = (
    actuator.router,
    blueprint_models.router,
    model_types.router,
    dictionaries.router,
    configs.router,
    templates.router,
    resources.router,
)


def create_app(settings: Settings) -> FastAPI:
    app = build_app(SPEC, settings, routers=ROUTERS)
    app.state.blueprint_catalog = BlueprintCatalog(
        db=app.state.db, blobs=app.state.blobs, limits=ArchiveLimits.from_settings(settings)
    )
    return app
