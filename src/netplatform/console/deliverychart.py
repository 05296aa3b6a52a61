"""A subscription's delivery outcomes over time, as stacked bars in inline SVG (no script)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

OUTCOMES = ("delivered", "redirected", "failed", "no answer", "expired")
BUCKETS = 12
WIDTH, HEIGHT, TOP, BOTTOM, LEFT = 720, 200, 10, 30, 40


@dataclass
class Bar:
    x: float
    width: float
    label: str
    parts: list[dict[str, Any]] = field(default_factory=list)


def outcome(record: dict[str, Any]) -> str | None:
    """``del`` records by their status (-1: nothing answered), ``exp`` as expired; others not drawn."""
    if record.get("type") == "exp":
        return "expired"
    if record.get("type") != "del":
        return None
    code = int(record.get("statusCode", 0))
    if code == -1:
        return "no answer"
    return "delivered" if 200 <= code < 300 else "redirected" if 300 <= code < 400 else "failed"


def _moment(record: dict[str, Any]) -> datetime | None:
    try:
        return datetime.fromisoformat(str(record.get("date", "")).replace("Z", "+00:00"))
    except ValueError:
        return None


def delivery_chart(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Attempts per time bucket between the first and the last record, by outcome; None if none."""
    points = [(when, kind) for r in records if (kind := outcome(r)) and (when := _moment(r))]
    if not points:
        return None
    first = min(when for when, _ in points)
    span = max((max(when for when, _ in points) - first).total_seconds(), 1.0)
    counts = [dict.fromkeys(OUTCOMES, 0) for _ in range(BUCKETS)]
    for when, kind in points:
        index = min(int((when - first).total_seconds() / span * BUCKETS), BUCKETS - 1)
        counts[index][kind] += 1
    top = max(sum(bucket.values()) for bucket in counts)
    slot = (WIDTH - LEFT) / BUCKETS
    scale = (HEIGHT - TOP - BOTTOM) / top
    bars = []
    for index, bucket in enumerate(counts):
        start = first.timestamp() + span * index / BUCKETS
        bar = Bar(LEFT + index * slot + 2, slot - 4, datetime.fromtimestamp(start, UTC).strftime("%H:%M:%S"))
        y = float(HEIGHT - BOTTOM)
        for kind in OUTCOMES:
            if bucket[kind]:
                height = bucket[kind] * scale
                y -= height
                bar.parts.append({"kind": kind, "y": round(y, 1), "h": round(height, 1), "n": bucket[kind]})
        bars.append(bar)
    totals = {kind: sum(bucket[kind] for bucket in counts) for kind in OUTCOMES}
    size = {"width": WIDTH, "height": HEIGHT, "base": HEIGHT - BOTTOM}
    return {"bars": bars, "top": top, "totals": totals, **size}
