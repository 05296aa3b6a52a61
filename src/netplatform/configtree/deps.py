"""Typed dependencies of the config tree routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ..web.replay import replayable
from .service import ConfigTree


async def config_tree(request: Request) -> ConfigTree:
    tree: ConfigTree = request.app.state.config_tree
    return tree


ConfigTreeDep = Annotated[ConfigTree, Depends(config_tree)]

TREE = replayable(lambda request: request.app.state.tree)
"""GET answers of the tree are a function of the request and the stored tree alone: replayed
while it stands (:mod:`netplatform.web.replay`)."""
