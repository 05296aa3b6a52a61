"""The config tree's objects (:mod:`netplatform.web.registry`) and the typed dependencies of its routes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from ..store.generations import Generation
from ..web.registry import Registry
from ..web.replay import replayable
from .service import ConfigTree


@dataclass(frozen=True)
class ConfigTreeObjects:
    """The config tree's objects, built once by ``create_app``: the service object, and the
    generation of the stored tree that its GET answers are replayed under."""

    config_tree: ConfigTree
    tree: Generation


OBJECTS = Registry(ConfigTreeObjects)

ConfigTreeDep = Annotated[ConfigTree, OBJECTS.depends(lambda o: o.config_tree)]

REPLAYABLE = replayable(OBJECTS.pick(lambda o: o.tree))
"""GET answers of the tree are a function of the request and the stored tree alone: replayed
while it stands (:mod:`netplatform.web.replay`)."""
