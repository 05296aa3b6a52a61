"""How the bus controller answers: its bodies leave their null members out, error bodies too."""

from __future__ import annotations

from ..web.answers import Reply

reply = Reply(drop_none=True)
"""The kernel's :data:`~netplatform.web.answers.reply`, dropping null members (answers and errors)."""
