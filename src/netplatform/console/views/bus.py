"""Bus controller (docs/bus.md): sites, clusters, nodes, topics and clients, mirror bridges as a graph."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from ..apis import ApiError, refusal_status
from ..sessions import Session
from ..web import apis, current_session, render

router = APIRouter()

# The listings of the overview page, each a GET at the root of the bus port.
LISTINGS = ("svcLocations", "mr_clusters", "dr_nodes", "topics")


async def bus_get(request: Request, session: Session, path: str) -> Any:
    """The bus's JSON answer, or its ApiError (the bus's error body says ``message``)."""
    response = await apis(request).call("bus", "GET", path, session.credentials)
    if response.status_code != 200:
        return ApiError.of(response)
    return response.json()


@dataclass
class Edge:
    source: str
    target: str
    agent: str
    topics: int
    x1: float = 0.0
    y1: float = 0.0
    x2: float = 0.0
    y2: float = 0.0


@dataclass
class Graph:
    """Clusters on a circle and one arrow per mirror agent: positions computed here, drawn in SVG."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    size: int = 520


def bridge_graph(bridges: list[dict[str, Any]], clusters: list[dict[str, Any]]) -> Graph:
    """``GET /bridge?detail=true`` lists one entry per agent and then the total (brSource "all")."""
    edges = [
        Edge(
            str(b["brSource"]), str(b["brTarget"]), str(b.get("mmAgentName", "")), int(b.get("topicCount", 0))
        )
        for b in bridges
        if b.get("brSource") != "all" and b.get("brSource") and b.get("brTarget")
    ]
    sites = {str(c["fqdn"]): str(c.get("svcLocationName") or "") for c in clusters if c.get("fqdn")}
    names = sorted(set(sites) | _ends(edges))
    graph = Graph(edges=edges)
    centre, radius = graph.size / 2, graph.size / 2 - 90
    places: dict[str, tuple[float, float]] = {}
    for index, name in enumerate(names):
        angle = 2 * math.pi * index / max(len(names), 1) - math.pi / 2
        x = centre + (radius * math.cos(angle) if len(names) > 1 else 0)
        y = centre + (radius * math.sin(angle) if len(names) > 1 else 0)
        places[name] = (round(x, 1), round(y, 1))
        # The label sits outside the circle, away from the centre, where no arrow arrives.
        below = y >= centre
        node = {"name": name, "site": sites.get(name, ""), "x": places[name][0], "y": places[name][1]}
        graph.nodes.append({**node, "label_y": round(y + 54 if below else y - 60, 1)})
    for edge in edges:
        _place(edge, places[edge.source], places[edge.target])
    return graph


def _ends(edges: list[Edge]) -> set[str]:
    return {edge.source for edge in edges} | {edge.target for edge in edges}


def _place(edge: Edge, start: tuple[float, float], end: tuple[float, float]) -> None:
    """The arrow stops short of both circles (radius 34) so the arrowhead stays visible."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    # Two agents between the same pair in opposite directions are drawn side by side.
    nx, ny = -uy * 6, ux * 6
    edge.x1, edge.y1 = round(start[0] + ux * 36 + nx, 1), round(start[1] + uy * 36 + ny, 1)
    edge.x2, edge.y2 = round(end[0] - ux * 40 + nx, 1), round(end[1] - uy * 40 + ny, 1)


@router.get("/bus")
async def bus_overview(request: Request, session: Session = Depends(current_session)) -> Response:
    answers = await asyncio.gather(
        *(bus_get(request, session, "/" + name) for name in LISTINGS),
        bus_get(request, session, "/bridge?detail=true"),
    )
    lists: dict[str, list[dict[str, Any]]] = {}
    errors: list[ApiError] = []
    for name, answer in zip((*LISTINGS, "bridges"), answers, strict=True):
        if isinstance(answer, ApiError):
            errors.append(answer)
        lists[name] = answer if isinstance(answer, list) else []
    context = {
        "title": "Bus",
        "errors": errors,
        "graph": bridge_graph(lists["bridges"], lists["mr_clusters"]),
        **lists,
    }
    return render(request, "bus/index.html", context)


@router.get("/bus/topics/{fqtn}")
async def bus_topic(request: Request, fqtn: str, session: Session = Depends(current_session)) -> Response:
    topic = await bus_get(request, session, "/topics/" + quote(fqtn, safe=""))
    if isinstance(topic, ApiError):
        return render(
            request, "api_error.html", {"title": fqtn, "error": topic}, refusal_status(topic.status)
        )
    return render(request, "bus/topic.html", {"title": fqtn, "topic": topic})
