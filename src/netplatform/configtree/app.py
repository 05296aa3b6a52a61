"""The config tree app: its routes and its service object."""

from __future__ import annotations

from fastapi import FastAPI

from ..settings import Settings
from ..store.generations import Generation
from ..web.app import build_app
from .deps import OBJECTS, ConfigTreeObjects
from .routes import nodes
from .schema import data_model
from .service import ConfigTree
from .spec import SPEC
from .tables import TREE_SCOPE, changes, generations


def create_app(settings: Settings) -> FastAPI:
    data_model()  # parse the YANG modules now, not on the first request
    app = build_app(SPEC, settings, routers=[nodes.router])
    db = app.state.db
    OBJECTS.install(
        app, ConfigTreeObjects(ConfigTree(db), Generation(db, generations, TREE_SCOPE, changes=changes))
    )
    return app
