"""What the store raises to its callers, in its own terms (it knows nothing of HTTP).

The web kernel maps :class:`WriteConflict` to the 409 every service answered before the store
had its own exception (the kernel's ``build_app`` in web/app.py); code that runs outside a request
(starter loads, blueprint steps) catches it beside the web errors.
"""

from __future__ import annotations

WRITE_CONFLICT_MESSAGE = "the same data is being changed concurrently, try again"


class WriteConflict(Exception):
    """A write lost its race every time it was run: the data is being changed concurrently."""

    def __init__(self, message: str = WRITE_CONFLICT_MESSAGE) -> None:
        super().__init__(message)
        self.message = message
