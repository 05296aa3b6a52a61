"""The file-distribution error body: the message as ``text/plain`` (clients match status and text)."""

from __future__ import annotations

from ..web.errors import plain_text_renderer

render_error = plain_text_renderer
ERROR_MEDIA_TYPE = "text/plain"
