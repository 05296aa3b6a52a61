"""The kernel's ASGI middleware: one layer (``kernel.py``) around every service."""
