"""The file-distribution error body: the message as ``text/plain`` (clients match status and text).

The texts the feed and subscription routes share are here too: a bad number in the path is a
400 with them, an unknown or deleted object a 404 with the same text (as the reference answers).
"""

from __future__ import annotations

from ..web.errors import plain_text_renderer

render_error = plain_text_renderer
ERROR_MEDIA_TYPE = "text/plain"

FEED_NOT_FOUND = "Missing or bad feed number."
SUBSCRIPTION_NOT_FOUND = "Missing or bad subscription number."
