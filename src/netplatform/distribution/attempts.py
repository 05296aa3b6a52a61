"""One attempt to send a file, to a subscriber (delivery/sender.py) or to the node that delivers it
(forward_sender.py): below both, so neither sender imports the other's package."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attempt:
    """What was sent and what came back (``status`` -1: no answer)."""

    url: str
    method: str
    file_name: str
    content_type: str | None
    content_length: int
    status: int
    location: str | None = None
    refusal: str | None = None  # not sent at all: why (a decompression limit)
