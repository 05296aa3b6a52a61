"""The kernel's ASGI middleware, one module each (outermost first: context, auth, body limit)."""
