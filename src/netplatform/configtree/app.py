"""The config tree app: its identity, its routes and its service object."""

from __future__ import annotations

from fastapi import FastAPI

from ..settings import Settings
from ..store.generations import Generation
from ..web.app import build_app
from ..web.service import ServiceSpec
from .deps import OBJECTS, ConfigTreeObjects
from .errors import RestconfErrors, render_error
from .openapi import add_node_paths
from .routes import nodes
from .schema import data_model
from .service import ConfigTree
from .tables import TREE_SCOPE, generations

SPEC = ServiceSpec(
    name="configtree",
    title="netplatform config tree",
    version="1.0.0",
    render_error=render_error,
    error_model=RestconfErrors,
    openapi_extension=add_node_paths,
)


def create_app(settings: Settings) -> FastAPI:
    data_model()  # parse the YANG modules now, not on the first request
    app = build_app(SPEC, settings, routers=[nodes.router])
    db = app.state.db
    OBJECTS.install(app, ConfigTreeObjects(ConfigTree(db), Generation(db, generations, TREE_SCOPE)))
    return app
