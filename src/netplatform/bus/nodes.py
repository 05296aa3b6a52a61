"""File-distribution nodes: bookkeeping only (nothing is pushed to the distribution service)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..clock import wire_now
from ..web.errors import Conflict, NotFound
from . import repository as repo
from .checks import require
from .schemas import DrNode, Status


def list_nodes(session: Session) -> list[DrNode]:
    return repo.list_all(session, repo.DR_NODES)


def get(session: Session, fqdn: str) -> DrNode:
    node = repo.get(session, repo.DR_NODES, fqdn)
    if node is None:
        raise NotFound(f"Node {fqdn} does not exist", fields="fqdn")
    return node


def create(session: Session, body: DrNode) -> DrNode:
    require(body.svcLocationName, "svcLocationName")
    require(body.fqdn, "fqdn")
    node = body.model_copy(update={"status": Status.VALID.value, "lastMod": wire_now()})
    try:
        repo.insert_object(session, repo.DR_NODES, node)
    except repo.Duplicate:
        raise Conflict(f"Node {body.fqdn} already exists", fields="fqdn") from None
    return node


def replace(session: Session, fqdn: str, body: DrNode) -> DrNode:
    get(session, fqdn)
    node = body.model_copy(update={"fqdn": fqdn, "status": Status.VALID.value, "lastMod": wire_now()})
    repo.update_object(session, repo.DR_NODES, fqdn, node)
    return node


def delete(session: Session, fqdn: str) -> None:
    if not repo.delete_object(session, repo.DR_NODES, fqdn):
        raise NotFound(f"Node {fqdn} does not exist", fields="fqdn")
