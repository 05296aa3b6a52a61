"""Content negotiation every service shares: media types, Accept ranges and their quality.

One parser for ``Content-Type`` and ``Accept`` so every service reads a header the same way.
A quality that is not a number (``q=high``) counts as 0: RFC 9110 allows only digits there,
and a range whose weight cannot be read is no statement of preference.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class MediaRange:
    """One entry of an Accept header: ``type/subtype`` (lower case), its parameters and weight."""

    media_type: str
    quality: float = 1.0
    position: int = 0
    params: dict[str, str] = field(default_factory=dict)

    def matches(self, media_type: str) -> bool:
        """True when this range covers ``media_type`` (exactly, ``type/*`` or ``*/*``)."""
        if self.media_type in ("*/*", media_type):
            return True
        family, _, subtype = self.media_type.partition("/")
        return subtype == "*" and media_type.startswith(family + "/")


def parse_media_type(value: str | None) -> tuple[str, dict[str, str]]:
    """``application/json; charset=utf-8`` -> (``application/json``, ``{"charset": "utf-8"}``)."""
    kind, *raw_params = (value or "").split(";")
    params = {}
    for raw in raw_params:
        name, _, param_value = raw.partition("=")
        if name.strip():
            params[name.strip().lower()] = param_value.strip().strip('"')
    return kind.strip().lower(), params


def accept_ranges(accept: str | None) -> list[MediaRange]:
    """The ranges of an Accept header in the order given (empty when the header is absent)."""
    ranges = []
    for position, item in enumerate((accept or "").split(",")):
        media_type, params = parse_media_type(item)
        if not media_type:
            continue
        quality = _quality(params.pop("q", "1"))
        ranges.append(MediaRange(media_type, quality, position, params))
    return ranges


def quality_of(
    ranges: Iterable[MediaRange], media_types: Iterable[str], *, wildcards: bool = True
) -> tuple[float, int]:
    """The best (quality, -position) any range gives one of ``media_types``; (0, 0) when none does.

    The position breaks ties in favour of the range listed first. ``wildcards=False`` counts only
    ranges that name a type exactly (a type a client must ask for by name).
    """
    wanted = set(media_types)
    best = (0.0, 0)
    for entry in ranges:
        named = entry.media_type in wanted
        if named or (wildcards and any(entry.matches(kind) for kind in wanted)):
            best = max(best, (entry.quality, -entry.position))
    return best


def is_acceptable(accept: str | None, media_types: Iterable[str]) -> bool:
    """True when the Accept header is absent or blank, or admits one of ``media_types`` with q > 0."""
    if accept is None or not accept.strip():
        return True
    return quality_of(accept_ranges(accept), media_types)[0] > 0


def _quality(text: str) -> float:
    try:
        quality = float(text)
    except ValueError:
        return 0.0
    return quality if 0.0 <= quality <= 1.0 else 0.0
