"""The config tree's objects (:mod:`netplatform.web.registry`) and the typed dependencies of its routes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Request

from ..store.generations import Generation
from ..web.errors import ApiError
from ..web.registry import Registry
from ..web.replay import replayable
from .paths import below_config, parse_target
from .repository import entry_object
from .schema import qualified_name
from .service import ConfigTree


@dataclass(frozen=True)
class ConfigTreeObjects:
    """The config tree's objects, built once by ``create_app``: the service object, and the
    generation of the stored tree that its GET answers are replayed under."""

    config_tree: ConfigTree
    tree: Generation


OBJECTS = Registry(ConfigTreeObjects)

ConfigTreeDep = Annotated[ConfigTree, OBJECTS.depends(ConfigTree, lambda o: o.config_tree)]


def raw_path(request: Request) -> bytes:
    """The request's path as sent (the decoded path would turn ``%2F`` inside a key into ``/``)."""
    raw: bytes = request.scope.get("raw_path") or request.url.path.encode()
    return raw


def entry_of(request: Request) -> str | None:
    """The change-log key of the list entry a node is in or is (a list directly under a
    top-level container: one row each), else None (the answer reads more than one row)."""
    try:
        steps = parse_target(below_config(raw_path(request))).steps
    except ApiError:
        return None  # the route answers the bad path itself; nothing is kept
    if len(steps) < 2 or not steps[1].is_entry:
        return None
    return entry_object(qualified_name(steps[0].node), steps[1].node.iname(), steps[1].keys)


REPLAYABLE = replayable(OBJECTS.pick(lambda o: o.tree), entry_of)
"""GET answers of the tree are a function of the request and the stored tree alone: replayed
while it stands (:mod:`netplatform.web.replay`). A node in a list entry reads that entry's row
alone (:meth:`.tree.Tree.read`), so its answer stands until that entry changes."""
