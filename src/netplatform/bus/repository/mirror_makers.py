"""Mirror-maker agents: by the cluster pairs they bridge and by the topics on their whitelists."""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlalchemy import Text, and_, cast, or_
from sqlalchemy.orm import Session

from .. import tables
from ..schemas import MirrorMaker
from .rows import MIRROR_MAKERS, insert_object, list_all, update_object


def agents_of_pairs(session: Session, pairs: Iterable[tuple[str, str]]) -> list[MirrorMaker]:
    """The agents bridging any of the (source, target) cluster pairs."""
    table = tables.mirror_makers
    wanted = [and_(table.c.source_cluster == s, table.c.target_cluster == t) for s, t in pairs]
    return list_all(session, MIRROR_MAKERS, or_(*wanted)) if wanted else []


def agents_holding(session: Session, fqtn: str) -> list[MirrorMaker]:
    """The agents whose whitelist holds the fqtn (a text prefilter, then an exact check)."""
    table = tables.mirror_makers
    quoted = json.dumps(fqtn)
    candidates = list_all(
        session, MIRROR_MAKERS, cast(table.c.topics, Text).contains(quoted, autoescape=True)
    )
    return [agent for agent in candidates if fqtn in (agent.topics or [])]


def save_mirror_maker(session: Session, agent: MirrorMaker, *, is_new: bool) -> None:
    if is_new:
        insert_object(session, MIRROR_MAKERS, agent)
    else:
        update_object(session, MIRROR_MAKERS, agent.mmName or "", agent)
