"""Mirror-maker agents: by the cluster pairs they bridge and by the topics on their whitelists."""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlalchemy import Text, and_, cast, or_

from .. import tables
from ..schemas import MirrorMaker
from .rows import MIRROR_MAKERS, RowRepository


class MirrorMakerRepository(RowRepository):
    def of_pairs(self, pairs: Iterable[tuple[str, str]]) -> list[MirrorMaker]:
        """The agents bridging any of the (source, target) cluster pairs."""
        table = tables.mirror_makers
        wanted = [and_(table.c.source_cluster == s, table.c.target_cluster == t) for s, t in pairs]
        return self.list_all(MIRROR_MAKERS, or_(*wanted)) if wanted else []

    def holding(self, fqtn: str) -> list[MirrorMaker]:
        """The agents whose whitelist holds the fqtn (a text prefilter, then an exact check)."""
        table = tables.mirror_makers
        quoted = json.dumps(fqtn)
        candidates = self.list_all(
            MIRROR_MAKERS, cast(table.c.topics, Text).contains(quoted, autoescape=True)
        )
        return [agent for agent in candidates if fqtn in (agent.topics or [])]

    def save(self, agent: MirrorMaker, *, is_new: bool) -> None:
        if is_new:
            self.insert(MIRROR_MAKERS, agent)
        else:
            self.update(MIRROR_MAKERS, agent.mmName or "", agent)
