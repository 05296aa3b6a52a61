"""Typed dependencies of the config tree routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .service import ConfigTree


def config_tree(request: Request) -> ConfigTree:
    tree: ConfigTree = request.app.state.config_tree
    return tree


ConfigTreeDep = Annotated[ConfigTree, Depends(config_tree)]
